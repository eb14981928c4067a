/**
 * Where the text card's model and tokenizer come from, and the Cache Storage bucket that keeps
 * them: shared by the worker, which downloads them, and the card, which says whether a visit kept
 * them (a module of constants only, so that each side's chunk takes its own copy).
 */

/** GPT-2 small as transformers.js loads it for dtype q8 (`onnx/model` + `_quantized`): one graph, no If. */
export const HUB_REPO = 'https://huggingface.co/onnx-community/gpt2-ONNX/resolve/main/';
export const HUB_MODEL = `${HUB_REPO}onnx/model_quantized.onnx`;
export const HUB_TOKENIZER = `${HUB_REPO}tokenizer.json`;

/** The Cache Storage bucket of the page's downloaded models and tokenizers. */
export const MODEL_CACHE = 'layernorm-wasm-models-v1';
