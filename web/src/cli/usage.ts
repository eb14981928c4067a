/** The command line's help text, and the error for a bad command line (exit status 2). */
import { GPT2_SAFETENSORS_URL } from '../io/index.js';

export const USAGE = `Usage: layernorm-wasm --weights <url|file|gpt2> --in <x.npy> [--out <y.npy>] [options]

Normalizes each row of the input (last dimension d) with the checkpoint's norm: LayerNorm
y = γ·(x − μ)/√(σ² + ε) + β, or RMSNorm y = γ·x/√(mean(x²) + ε) for an RMSNorm checkpoint
(Llama-family GGUF, config.json with rms_norm_eps).

Weights
  --weights <url|file>   safetensors, GGUF or .npy (gain); http(s) URLs are read with Range
                         requests, files through fs.openAsBlob; only the two tensors are read.
                         "gpt2" means ${GPT2_SAFETENSORS_URL}
  --weight-name <name>   gain tensor (default: ln_f / transformer.ln_f / output_norm, or the one
                         *norm* weight in the file)
  --bias-name <name>     bias tensor (default: the gain's sibling, e.g. ln_f.bias)
  --no-bias              load the gain only (bias-free LayerNorm; RMSNorm has none)
  --beta <file>          with a .npy gain: the bias .npy
  --config <url|file>    the model's config.json, for ε and the kind of norm (read by itself
                         for a Hugging Face Hub URL)
  --eps <number>         ε added to the variance or mean square (default: the checkpoint's ε when it states
                         one — GGUF metadata or config.json — else 1e-5)

Data
  --in <file>            activations: .npy (float32/float64/float16, C order), .json (nested
                         arrays or {"shape", "data"}), or .txt/.csv (one row per line)
  --out <file>           where to write y as float32 .npy (same shape as the input); written
                         to a temporary file beside it, then renamed over it
  --expect <file>        reference output to compare with (same formats as --in)
  --tol <number>         largest acceptable max |y − expected| (default 1e-5)

Runtime
  --backend <b>          auto (default), simd or scalar
  -h, --help             show this help

Exit status: 0 ok, 1 failure or --expect over --tol, 2 bad arguments.`;

/** A command line that cannot be run as given: printed with a pointer to --help, exit status 2. */
export class UsageError extends Error {}
