// Empty stand-in for Node built-ins that the tfjs wasm backend bundle imports but never uses in a browser.
export default {};
