// Embind's call wrappers without code generated from strings, and as fast as the generated ones.
//
// With -sDYNAMIC_EXECUTION=0 (strict Content-Security-Policy: no eval), Emscripten 3.1.6's
// Embind replaces its `new Function` invokers by one generic wrapper that rebuilds an argument
// array, goes through `apply` and allocates a closure on every call: about 0.4 µs more per call,
// half again the cost of a one-row LayerNorm. Every function this module binds takes and returns
// plain values (pointers, sizes, doubles, ints, a returned std::string), so a wrapper per arity
// that converts each argument with its own type and calls the invoker directly does the same
// work as the generated code, without evaluating anything. Anything else (class methods,
// arguments with destructors, more than 8 arguments) keeps Embind's own eval-free wrapper.
// Linked with --js-library after Embind's own library, whose craftInvokerFunction it replaces.

mergeInto(LibraryManager.library, {
  // Embind's own (eval-free, as -sDYNAMIC_EXECUTION=0 preprocessed it), kept under another name.
  $embindGenericInvoker: LibraryManager.library['$craftInvokerFunction'],
  $embindGenericInvoker__deps: LibraryManager.library['$craftInvokerFunction__deps'],
  $craftInvokerFunction__deps: ['$throwBindingError', '$embindGenericInvoker'],
  $craftInvokerFunction: function (humanName, argTypes, classType, cppInvokerFunc, cppTargetFunc) {
    var argCount = argTypes.length - 2;
    if (argCount < 0) {
      throwBindingError("argTypes array size mismatch! Must at least get return value and 'this' types!");
    }
    var isMethod = argTypes[1] !== null && classType !== null;
    var params = argTypes.slice(2);
    var ret = argTypes[0];
    var returns = ret.name !== 'void';
    var checkCount = function (n) {
      if (n !== argCount) {
        throwBindingError('function ' + humanName + ' called with ' + n + ' arguments, expected ' + argCount + ' args!');
      }
    };
    var done = function (rv) {
      return returns ? ret['fromWireType'](rv) : undefined;
    };

    var plain = !isMethod && argCount <= 8;
    for (var i = 0; i < params.length; i++) {
      if (params[i].destructorFunction !== null) plain = false;
    }
    if (plain) {
      var f = cppInvokerFunc,
        t = cppTargetFunc;
      var a0 = params[0], a1 = params[1], a2 = params[2], a3 = params[3];
      var a4 = params[4], a5 = params[5], a6 = params[6], a7 = params[7];
      switch (argCount) {
        case 0:
          return function () {
            checkCount(arguments.length);
            return done(f(t));
          };
        case 1:
          return function (x0) {
            checkCount(arguments.length);
            return done(f(t, a0['toWireType'](null, x0)));
          };
        case 2:
          return function (x0, x1) {
            checkCount(arguments.length);
            return done(f(t, a0['toWireType'](null, x0), a1['toWireType'](null, x1)));
          };
        case 3:
          return function (x0, x1, x2) {
            checkCount(arguments.length);
            return done(f(t, a0['toWireType'](null, x0), a1['toWireType'](null, x1), a2['toWireType'](null, x2)));
          };
        case 4:
          return function (x0, x1, x2, x3) {
            checkCount(arguments.length);
            return done(
              f(t, a0['toWireType'](null, x0), a1['toWireType'](null, x1), a2['toWireType'](null, x2),
                a3['toWireType'](null, x3)));
          };
        case 5:
          return function (x0, x1, x2, x3, x4) {
            checkCount(arguments.length);
            return done(
              f(t, a0['toWireType'](null, x0), a1['toWireType'](null, x1), a2['toWireType'](null, x2),
                a3['toWireType'](null, x3), a4['toWireType'](null, x4)));
          };
        case 6:
          return function (x0, x1, x2, x3, x4, x5) {
            checkCount(arguments.length);
            return done(
              f(t, a0['toWireType'](null, x0), a1['toWireType'](null, x1), a2['toWireType'](null, x2),
                a3['toWireType'](null, x3), a4['toWireType'](null, x4), a5['toWireType'](null, x5)));
          };
        case 7:
          return function (x0, x1, x2, x3, x4, x5, x6) {
            checkCount(arguments.length);
            return done(
              f(t, a0['toWireType'](null, x0), a1['toWireType'](null, x1), a2['toWireType'](null, x2),
                a3['toWireType'](null, x3), a4['toWireType'](null, x4), a5['toWireType'](null, x5),
                a6['toWireType'](null, x6)));
          };
        case 8:
          return function (x0, x1, x2, x3, x4, x5, x6, x7) {
            checkCount(arguments.length);
            return done(
              f(t, a0['toWireType'](null, x0), a1['toWireType'](null, x1), a2['toWireType'](null, x2),
                a3['toWireType'](null, x3), a4['toWireType'](null, x4), a5['toWireType'](null, x5),
                a6['toWireType'](null, x6), a7['toWireType'](null, x7)));
          };
      }
    }

    // Anything else: Embind's own eval-free wrapper.
    return embindGenericInvoker(humanName, argTypes, classType, cppInvokerFunc, cppTargetFunc);
  },
});
