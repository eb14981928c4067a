/** The .wasm file as base64, for when it cannot be fetched from beside the package's JS. */
declare const wasmBase64: string;
export default wasmBase64;
