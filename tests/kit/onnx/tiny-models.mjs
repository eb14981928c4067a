// The tiny decoders of tests/data/onnx/ (make-models.py), computed again here in float64 from their
// weights, sharing nothing with the package or with onnxruntime: what each norm of the model sees,
// token by token. The tests compare what capture returns from a runtime's float32 run against it.
//
// Shapes (make-models.py): 2 blocks, d = 16, 2 heads of 8, a vocabulary of 64, a context of 32.
// nn.Linear computes x Wᵀ + b with W stored [out, in].

export const D = 16;
export const HEADS = 2;
export const HEAD_DIM = D / HEADS;
export const LAYERS = 2;
export const EPS_GPT2 = 1e-5;
export const EPS_LLAMA = 1e-6;

/** The norms of each family, in graph order, as the reader names them. */
export const NORM_NAMES = {
  gpt2: [
    'transformer.h.0.ln_1',
    'transformer.h.0.ln_2',
    'transformer.h.1.ln_1',
    'transformer.h.1.ln_2',
    'transformer.ln_f',
  ],
  llama: [
    'model.layers.0.input_layernorm',
    'model.layers.0.post_attention_layernorm',
    'model.layers.1.input_layernorm',
    'model.layers.1.post_attention_layernorm',
    'model.norm',
  ],
};

/** A weights file: a JSON line { name: [shape, offset] }, then little-endian float32 values. */
export function readWeights(bytes) {
  const newline = bytes.indexOf(10);
  const index = JSON.parse(new TextDecoder().decode(bytes.subarray(0, newline)));
  const view = new DataView(bytes.buffer, bytes.byteOffset + newline + 1);
  const weights = new Map();
  for (const [name, [shape, offset]] of Object.entries(index)) {
    const count = shape.reduce((a, b) => a * b, 1);
    const data = new Float64Array(count);
    for (let i = 0; i < count; i++) data[i] = view.getFloat32(4 * (offset + i), true);
    weights.set(name, { shape, data });
  }
  return weights;
}

/** x [T, n] · Wᵀ (W [m, n]) + b → [T, m]. */
function linear(x, T, W, b) {
  const [m, n] = W.shape;
  const y = new Float64Array(T * m);
  for (let t = 0; t < T; t++) {
    for (let o = 0; o < m; o++) {
      let s = b ? b.data[o] : 0;
      for (let i = 0; i < n; i++) s += x[t * n + i] * W.data[o * n + i];
      y[t * m + o] = s;
    }
  }
  return y;
}

const add = (a, b) => a.map((v, i) => v + b[i]);

function layerNorm(x, T, gamma, beta, eps) {
  const y = new Float64Array(x.length);
  for (let t = 0; t < T; t++) {
    const row = x.subarray(t * D, (t + 1) * D);
    const mean = row.reduce((a, b) => a + b, 0) / D;
    const variance = row.reduce((a, v) => a + (v - mean) ** 2, 0) / D;
    const r = 1 / Math.sqrt(variance + eps);
    for (let i = 0; i < D; i++) y[t * D + i] = (row[i] - mean) * r * gamma.data[i] + (beta ? beta.data[i] : 0);
  }
  return y;
}

function rmsNorm(x, T, gamma, eps) {
  const y = new Float64Array(x.length);
  for (let t = 0; t < T; t++) {
    const row = x.subarray(t * D, (t + 1) * D);
    const r = 1 / Math.sqrt(row.reduce((a, v) => a + v * v, 0) / D + eps);
    for (let i = 0; i < D; i++) y[t * D + i] = row[i] * r * gamma.data[i];
  }
  return y;
}

/** Causal attention of every position over itself and those before it (no past), heads of HEAD_DIM. */
function attend(q, k, v, T) {
  const out = new Float64Array(T * D);
  for (let h = 0; h < HEADS; h++) {
    for (let i = 0; i < T; i++) {
      const scores = [];
      for (let j = 0; j <= i; j++) {
        let s = 0;
        for (let c = 0; c < HEAD_DIM; c++) s += q[i * D + h * HEAD_DIM + c] * k[j * D + h * HEAD_DIM + c];
        scores.push(s / Math.sqrt(HEAD_DIM));
      }
      const max = Math.max(...scores);
      const e = scores.map((s) => Math.exp(s - max));
      const sum = e.reduce((a, b) => a + b, 0);
      for (let c = 0; c < HEAD_DIM; c++) {
        let s = 0;
        for (let j = 0; j <= i; j++) s += (e[j] / sum) * v[j * D + h * HEAD_DIM + c];
        out[i * D + h * HEAD_DIM + c] = s;
      }
    }
  }
  return out;
}

/** Rows `ids` of a [n, D] table. */
function lookup(table, ids) {
  const out = new Float64Array(ids.length * D);
  ids.forEach((id, t) => out.set(table.data.subarray(id * D, (id + 1) * D), t * D));
  return out;
}

const geluNew = (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));

/**
 * What each norm of the GPT-2-shaped model sees for these token ids (positions 0…T−1, no past),
 * in graph order: ln_1 and ln_2 of each block, then ln_f; each [T × D] values. `bias`: its norms have β.
 */
export function gpt2NormInputs(w, ids, { bias = true } = {}) {
  const T = ids.length;
  const get = (name) => w.get(name);
  let x = add(lookup(get('transformer.wte.weight'), ids), lookup(get('transformer.wpe.weight'), [...ids.keys()]));
  const seen = [];
  const norm = (v, name) => {
    seen.push(Float64Array.from(v));
    return layerNorm(v, T, get(`${name}.weight`), bias ? get(`${name}.bias`) : null, EPS_GPT2);
  };
  for (let l = 0; l < LAYERS; l++) {
    const p = `transformer.h.${l}`;
    const qkv = linear(norm(x, `${p}.ln_1`), T, get(`${p}.attn.c_attn.weight`), get(`${p}.attn.c_attn.bias`));
    const part = (k) =>
      Float64Array.from({ length: T * D }, (_, n) => qkv[Math.floor(n / D) * 3 * D + k * D + (n % D)]);
    const a = attend(part(0), part(1), part(2), T);
    const h = add(x, linear(a, T, get(`${p}.attn.c_proj.weight`), get(`${p}.attn.c_proj.bias`)));
    const f = linear(norm(h, `${p}.ln_2`), T, get(`${p}.mlp.c_fc.weight`), get(`${p}.mlp.c_fc.bias`)).map(geluNew);
    x = add(h, linear(f, T, get(`${p}.mlp.c_proj.weight`), get(`${p}.mlp.c_proj.bias`)));
  }
  norm(x, 'transformer.ln_f');
  return seen;
}

/** Rotary embedding at positions 0…T−1 from the model's own cos / sin tables ([CONTEXT, HEAD_DIM]). */
function rotate(x, T, cos, sin) {
  const out = new Float64Array(x.length);
  const half = HEAD_DIM / 2;
  for (let t = 0; t < T; t++) {
    for (let h = 0; h < HEADS; h++) {
      for (let c = 0; c < HEAD_DIM; c++) {
        const at = t * D + h * HEAD_DIM;
        const rotated = c < half ? -x[at + c + half] : x[at + c - half];
        out[at + c] = x[at + c] * cos.data[t * HEAD_DIM + c] + rotated * sin.data[t * HEAD_DIM + c];
      }
    }
  }
  return out;
}

/** The Llama-shaped model's norm inputs, in graph order: input_layernorm and post_attention_layernorm of each layer, then model.norm. */
export function llamaNormInputs(w, ids) {
  const T = ids.length;
  const get = (name) => w.get(name);
  let x = lookup(get('model.embed_tokens.weight'), ids);
  const seen = [];
  const norm = (v, name) => {
    seen.push(Float64Array.from(v));
    return rmsNorm(v, T, get(`${name}.weight`), EPS_LLAMA);
  };
  const [cos, sin] = [get('model.cos_cached'), get('model.sin_cached')];
  for (let l = 0; l < LAYERS; l++) {
    const p = `model.layers.${l}`;
    const n = norm(x, `${p}.input_layernorm`);
    const q = rotate(linear(n, T, get(`${p}.self_attn.q_proj.weight`)), T, cos, sin);
    const k = rotate(linear(n, T, get(`${p}.self_attn.k_proj.weight`)), T, cos, sin);
    const v = linear(n, T, get(`${p}.self_attn.v_proj.weight`));
    const h = add(x, linear(attend(q, k, v, T), T, get(`${p}.self_attn.o_proj.weight`)));
    const m = norm(h, `${p}.post_attention_layernorm`);
    const gate = linear(m, T, get(`${p}.mlp.gate_proj.weight`)).map((g) => g / (1 + Math.exp(-g)));
    const up = linear(m, T, get(`${p}.mlp.up_proj.weight`));
    x = add(
      h,
      linear(
        gate.map((g, i) => g * up[i]),
        T,
        get(`${p}.mlp.down_proj.weight`),
      ),
    );
  }
  norm(x, 'model.norm');
  return seen;
}
