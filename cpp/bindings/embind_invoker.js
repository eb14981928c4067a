// Embind's call wrappers without code generated from strings, and as fast as the generated ones.
//
// With -sDYNAMIC_EXECUTION=0 (strict Content-Security-Policy: no eval), Emscripten 3.1.6's
// Embind replaces its `new Function` invokers by one generic wrapper that rebuilds an argument
// array, goes through `apply` and allocates a closure on every call: about 0.4 µs more per call,
// half again the cost of a one-row LayerNorm. Every function embind.cc binds is a free function
// taking plain values (pointers, sizes, doubles) and returning an int, a size or a std::string,
// so a wrapper per arity that converts each argument with its own type and calls the invoker
// directly does the same work as the generated code, without evaluating anything. A binding of
// another kind (a class method, an argument with a destructor, more than 8 arguments) is refused
// when the module starts, so it shows at once in every test; Embind's own wrapper for those is
// not linked, to keep the glue small.
// Linked with --js-library after Embind's own library, whose craftInvokerFunction it replaces.

mergeInto(LibraryManager.library, {
  $craftInvokerFunction__deps: ['$throwBindingError'],
  $craftInvokerFunction: function (humanName, argTypes, classType, cppInvokerFunc, cppTargetFunc) {
    var argCount = argTypes.length - 2;
    var plain = argCount >= 0 && argCount <= 8 && (argTypes[1] === null || classType === null);
    for (var i = 2; i < argTypes.length; i++) {
      if (argTypes[i].destructorFunction !== null) plain = false;
    }
    if (!plain) {
      throwBindingError(
        humanName + ': cpp/bindings/embind_invoker.js binds free functions of up to 8 plain arguments only');
    }
    var ret = argTypes[0];
    var returns = ret.name !== 'void';
    var f = cppInvokerFunc, t = cppTargetFunc;
    var a0 = argTypes[2], a1 = argTypes[3], a2 = argTypes[4], a3 = argTypes[5];
    var a4 = argTypes[6], a5 = argTypes[7], a6 = argTypes[8], a7 = argTypes[9];
    var checkCount = function (n) {
      if (n !== argCount) {
        throwBindingError('function ' + humanName + ' called with ' + n + ' arguments, expected ' + argCount + ' args!');
      }
    };
    var done = function (rv) {
      return returns ? ret['fromWireType'](rv) : undefined;
    };
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
      default:
        return function (x0, x1, x2, x3, x4, x5, x6, x7) {
          checkCount(arguments.length);
          return done(
            f(t, a0['toWireType'](null, x0), a1['toWireType'](null, x1), a2['toWireType'](null, x2),
              a3['toWireType'](null, x3), a4['toWireType'](null, x4), a5['toWireType'](null, x5),
              a6['toWireType'](null, x6), a7['toWireType'](null, x7)));
        };
    }
  },
});
