#!/usr/bin/python3
"""Writes the tiny ONNX models the tests of layernorm-wasm/onnx read, into this folder.

Tiny GPT-2- and Llama-shaped decoders (2 blocks, d = 16, 2 heads, a vocabulary of 64, a context
of 32, seeded random weights), exported by torch.onnx.export with the inputs and outputs of
optimum's export that transformers.js runs (input_ids, attention_mask, position_ids,
past_key_values.N.key/value; logits, present.N.key/value), in every graph form a norm takes:

  gpt2-opset17.onnx           LayerNormalization operators
  gpt2-opset14.onnx           the decomposed LayerNorm (ReduceMean, Sub, Pow, ..., Mul, Add), the
                              form of GPT-2's ONNX exports on the Hugging Face Hub
  gpt2-nopos-opset14.onnx     the same without a position_ids input (positions counted in the graph),
                              its constants (ε, Pow's 2) stored as initializers instead of Constant nodes
  gpt2-q8-opset14.onnx        gpt2-opset14 with its MatMuls and token embedding quantized to 8 bits
                              as onnxruntime's dynamic quantization writes them (transformers.js'
                              q8 "model_quantized.onnx"): its norms stay float32
  gpt2-biasfree-opset14.onnx  a bias-free LayerNorm (gain only), decomposed without the last Add
  gpt2-biasfree-opset17.onnx  LayerNormalization without B
  gpt2-fused.onnx             onnxruntime's fused forms: LayerNormalization, then
                              SkipLayerNormalization (input + skip [+ bias]), ln_f's without its sum output
  llama-opset14.onnx          a decomposed RMSNorm as LlamaRMSNorm exports (x * rsqrt(mean(x²) + ε), then
                              γ * that), the final norm written x / sqrt(mean(x²) + ε) * γ
  llama-fused.onnx            SimplifiedLayerNormalization, then SkipSimplifiedLayerNormalization

and the models the reader must refuse: norm-in-if.onnx (a LayerNormalization inside an If branch,
as in decoder_model_merged exports), norm-in-loop.onnx, float16.onnx (float16 γ and β),
float16-activations.onnx and float16-activations-untyped.onnx (float32 γ over float16 values, their
type stated or not), external-data.onnx (γ kept in an external file), no-norm.onnx.

The weights the tests' independent forward pass needs are written beside them:
gpt2.weights.bin, gpt2-biasfree.weights.bin, llama.weights.bin (a JSON line
{ name: [shape, offset] } then the float32 values, little-endian).

Run with Debian 12's python3-torch (1.13) and python3-onnx (1.12):
  apt-get install -y python3-torch python3-onnx && /usr/bin/python3 tests/data/onnx/make-models.py
Seeded: a second run writes the same weights (and, with the same torch, the same models).
"""
import json
import math
import os

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB, D, HEADS, LAYERS, CONTEXT = 64, 16, 2, 2, 32
HEAD_DIM = D // HEADS
EPS_GPT2, EPS_LLAMA = 1e-5, 1e-6


def gelu_new(x):
    # GPT-2's GELU (transformers' NewGELUActivation), written out.
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def attend(q, k, v, attention_mask):
    """Causal attention of q over the past and present keys; q, k, v as [B, H, T, hd]."""
    T, S = q.shape[2], k.shape[2]
    scores = q @ k.transpose(-1, -2) / math.sqrt(HEAD_DIM)
    rows = torch.arange(T)[:, None] + (S - T)
    causal = torch.arange(S)[None, :] <= rows
    allowed = causal[None, None, :, :] & (attention_mask[:, None, None, :] > 0)
    scores = torch.where(allowed, scores, torch.tensor(-1e9))
    return torch.softmax(scores, dim=-1) @ v


def heads(x):
    B, T = x.shape[0], x.shape[1]
    return x.reshape(B, T, HEADS, HEAD_DIM).transpose(1, 2)


def merge(x):
    B, T = x.shape[0], x.shape[2]
    return x.transpose(1, 2).reshape(B, T, D)


class LayerNorm(nn.Module):
    """torch's LayerNorm, with or without β (torch 1.13's nn.LayerNorm always has one)."""

    def __init__(self, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(D))
        self.bias = nn.Parameter(torch.zeros(D)) if bias else None

    def forward(self, x):
        return F.layer_norm(x, (D,), self.weight, self.bias, EPS_GPT2)


class SkipLayerNormFn(torch.autograd.Function):
    """input + skip (+ bias), then LayerNorm: onnxruntime's SkipLayerNormalization."""

    @staticmethod
    def forward(ctx, x, skip, gamma, beta, bias):
        s = x + skip if bias is None else x + skip + bias
        return F.layer_norm(s, (D,), gamma, beta, EPS_GPT2), s

    @staticmethod
    def symbolic(g, x, skip, gamma, beta, bias):
        inputs = [x, skip, gamma, beta] + ([] if bias is None else [bias])
        outs = g.op("com.microsoft::SkipLayerNormalization", *inputs, epsilon_f=EPS_GPT2, outputs=4)
        return outs[0], outs[3]


class LayerNormFn(torch.autograd.Function):
    """LayerNormalization as one operator (opset 17's), for the fused model's first norm."""

    @staticmethod
    def forward(ctx, x, gamma, beta):
        return F.layer_norm(x, (D,), gamma, beta, EPS_GPT2)

    @staticmethod
    def symbolic(g, x, gamma, beta):
        return g.op("LayerNormalization", x, gamma, beta, axis_i=-1, epsilon_f=EPS_GPT2)


class GPT2Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(D, 3 * D)
        self.c_proj = nn.Linear(D, D)

    def forward(self, x, past_k, past_v, mask, proj_bias=True):
        q, k, v = self.c_attn(x).split(D, dim=2)
        k = torch.cat([past_k, heads(k)], dim=2)
        v = torch.cat([past_v, heads(v)], dim=2)
        y = merge(attend(heads(q), k, v, mask))
        y = self.c_proj(y) if proj_bias else y @ self.c_proj.weight.t()
        return y, k, v


class MLP(nn.Module):
    def __init__(self, hidden, bias):
        super().__init__()
        self.c_fc = nn.Linear(D, hidden, bias=bias)
        self.c_proj = nn.Linear(hidden, D, bias=bias)

    def forward(self, x):
        return self.c_proj(gelu_new(self.c_fc(x)))


class GPT2Block(nn.Module):
    def __init__(self, bias):
        super().__init__()
        self.ln_1 = LayerNorm(bias)
        self.attn = GPT2Attention()
        self.ln_2 = LayerNorm(bias)
        self.mlp = MLP(4 * D, True)

    def forward(self, x, past_k, past_v, mask):
        a, k, v = self.attn(self.ln_1(x), past_k, past_v, mask)
        h = x + a
        return h + self.mlp(self.ln_2(h)), k, v


class GPT2Model(nn.Module):
    def __init__(self, bias, fused, positions):
        super().__init__()
        self.fused, self.positions = fused, positions
        self.wte = nn.Embedding(VOCAB, D)
        self.wpe = nn.Embedding(CONTEXT, D)
        self.h = nn.ModuleList([GPT2Block(bias) for _ in range(LAYERS)])
        self.ln_f = LayerNorm(bias)

    def forward(self, input_ids, attention_mask, position_ids, past):
        if position_ids is None:
            start = past[0].shape[2]
            position_ids = torch.arange(start, start + input_ids.shape[1])[None, :]
        x = self.wte(input_ids) + self.wpe(position_ids)
        presents = []
        if not self.fused:
            for i, block in enumerate(self.h):
                x, k, v = block(x, past[2 * i], past[2 * i + 1], attention_mask)
                presents += [k, v]
            return self.ln_f(x), presents
        # As onnxruntime's fusions leave GPT-2: each residual add is the skip of the next norm,
        # the attention projection's bias folded into ln_2's SkipLayerNormalization.
        normed = LayerNormFn.apply(x, self.h[0].ln_1.weight, self.h[0].ln_1.bias)
        for i, block in enumerate(self.h):
            a, k, v = block.attn(normed, past[2 * i], past[2 * i + 1], attention_mask, proj_bias=False)
            presents += [k, v]
            normed, x = SkipLayerNormFn.apply(a, x, block.ln_2.weight, block.ln_2.bias, block.attn.c_proj.bias)
            m = block.mlp(normed)
            nxt = self.h[i + 1].ln_1 if i + 1 < LAYERS else self.ln_f
            normed, x = SkipLayerNormFn.apply(m, x, nxt.weight, nxt.bias, None)
        return normed, presents


class GPT2(nn.Module):
    """GPT-2's structure and names (transformer.wte, .wpe, .h.N.ln_1/.attn/.ln_2/.mlp, .ln_f; lm_head tied to wte)."""

    def __init__(self, bias=True, fused=False, positions=True):
        super().__init__()
        self.positions = positions
        self.transformer = GPT2Model(bias, fused, positions)

    def forward(self, input_ids, attention_mask, *rest):
        position_ids, past = (rest[0], rest[1:]) if self.positions else (None, rest)
        y, presents = self.transformer(input_ids, attention_mask, position_ids, past)
        return (y @ self.transformer.wte.weight.t(), *presents)


class RMSNorm(nn.Module):
    """transformers' LlamaRMSNorm; `divide`: x / sqrt(mean(x²) + ε) * γ instead."""

    def __init__(self, divide=False):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(D))
        self.divide = divide

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        if self.divide:
            return x / torch.sqrt(variance + EPS_LLAMA) * self.weight
        return self.weight * (x * torch.rsqrt(variance + EPS_LLAMA))


class SimplifiedFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, gamma):
        return gamma * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS_LLAMA))

    @staticmethod
    def symbolic(g, x, gamma):
        # onnxruntime registers SimplifiedLayerNormalization in ONNX's domain; the domain is set there after export.
        return g.op("fused::SimplifiedLayerNormalization", x, gamma, axis_i=-1, epsilon_f=EPS_LLAMA)


class SkipSimplifiedFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, skip, gamma):
        s = x + skip
        return gamma * (s * torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + EPS_LLAMA)), s

    @staticmethod
    def symbolic(g, x, skip, gamma):
        outs = g.op("com.microsoft::SkipSimplifiedLayerNormalization", x, skip, gamma, epsilon_f=EPS_LLAMA, outputs=4)
        return outs[0], outs[3]


def rotate_half(x):
    return torch.cat([-x[..., HEAD_DIM // 2 :], x[..., : HEAD_DIM // 2]], dim=-1)


class LlamaAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = nn.Linear(D, D, bias=False)
        self.k_proj = nn.Linear(D, D, bias=False)
        self.v_proj = nn.Linear(D, D, bias=False)
        self.o_proj = nn.Linear(D, D, bias=False)

    def forward(self, x, cos, sin, past_k, past_v, mask):
        q, k, v = heads(self.q_proj(x)), heads(self.k_proj(x)), heads(self.v_proj(x))
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        return self.o_proj(merge(attend(q, k, v, mask))), k, v


class LlamaMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj = nn.Linear(D, 3 * D, bias=False)
        self.up_proj = nn.Linear(D, 3 * D, bias=False)
        self.down_proj = nn.Linear(3 * D, D, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_layernorm = RMSNorm()
        self.self_attn = LlamaAttention()
        self.post_attention_layernorm = RMSNorm()
        self.mlp = LlamaMLP()

    def forward(self, x, cos, sin, past_k, past_v, mask):
        a, k, v = self.self_attn(self.input_layernorm(x), cos, sin, past_k, past_v, mask)
        h = x + a
        return h + self.mlp(self.post_attention_layernorm(h)), k, v


class LlamaModel(nn.Module):
    def __init__(self, fused):
        super().__init__()
        self.fused = fused
        self.embed_tokens = nn.Embedding(VOCAB, D)
        self.layers = nn.ModuleList([LlamaLayer() for _ in range(LAYERS)])
        self.norm = RMSNorm(divide=not fused)
        inv_freq = 1.0 / (10000 ** (torch.arange(0, HEAD_DIM, 2).float() / HEAD_DIM))
        angles = torch.arange(CONTEXT).float()[:, None] * inv_freq[None, :]
        emb = torch.cat([angles, angles], dim=-1)
        self.register_buffer("cos_cached", emb.cos())
        self.register_buffer("sin_cached", emb.sin())

    def forward(self, input_ids, attention_mask, position_ids, past):
        x = self.embed_tokens(input_ids)
        cos = self.cos_cached[position_ids][:, None, :, :]
        sin = self.sin_cached[position_ids][:, None, :, :]
        presents = []
        if not self.fused:
            for i, layer in enumerate(self.layers):
                x, k, v = layer(x, cos, sin, past[2 * i], past[2 * i + 1], attention_mask)
                presents += [k, v]
            return self.norm(x), presents
        normed = SimplifiedFn.apply(x, self.layers[0].input_layernorm.weight)
        for i, layer in enumerate(self.layers):
            a, k, v = layer.self_attn(normed, cos, sin, past[2 * i], past[2 * i + 1], attention_mask)
            presents += [k, v]
            normed, x = SkipSimplifiedFn.apply(a, x, layer.post_attention_layernorm.weight)
            f = layer.mlp(normed)
            nxt = self.layers[i + 1].input_layernorm if i + 1 < LAYERS else self.norm
            normed, x = SkipSimplifiedFn.apply(f, x, nxt.weight)
        return normed, presents


class Llama(nn.Module):
    """Llama's structure and names (model.embed_tokens, model.layers.N.input_layernorm/.self_attn/
    .post_attention_layernorm/.mlp, model.norm, lm_head), rotary tables of CONTEXT rows gathered by position_ids."""

    def __init__(self, fused=False):
        super().__init__()
        self.model = LlamaModel(fused)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, input_ids, attention_mask, position_ids, *past):
        y, presents = self.model(input_ids, attention_mask, position_ids, past)
        return (self.lm_head(y), *presents)


def seeded(model, seed):
    """Weights of N(0, 0.3²); norms' γ of N(1, 0.3²) and β of N(0, 0.2²), all distinct (torch would share equal ones)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "ln_" in name or "norm" in name:
                p.copy_((1.0 if name.endswith("weight") else 0.0) + torch.randn(p.shape, generator=g) * (0.3 if name.endswith("weight") else 0.2))
            else:
                p.copy_(torch.randn(p.shape, generator=g) * 0.3)
    return model.eval()


def export(model, path, opset, positions=True):
    names = ["input_ids", "attention_mask"] + (["position_ids"] if positions else [])
    past_names = [f"past_key_values.{i}.{kv}" for i in range(LAYERS) for kv in ("key", "value")]
    present_names = [f"present.{i}.{kv}" for i in range(LAYERS) for kv in ("key", "value")]
    T, P = 3, 2
    args = [torch.tensor([[1, 2, 3]]), torch.ones(1, P + T, dtype=torch.long)]
    if positions:
        args.append(torch.arange(P, P + T)[None, :])
    args += [torch.zeros(1, HEADS, P, HEAD_DIM) for _ in past_names]
    axes = {
        "input_ids": {0: "batch_size", 1: "sequence_length"},
        "attention_mask": {0: "batch_size", 1: "past_sequence_length + sequence_length"},
        "position_ids": {0: "batch_size", 1: "sequence_length"},
        "logits": {0: "batch_size", 1: "sequence_length"},
    }
    axes.update({n: {0: "batch_size", 2: "past_sequence_length"} for n in past_names})
    axes.update({n: {0: "batch_size", 2: "past_sequence_length + sequence_length"} for n in present_names})
    torch.onnx.export(
        model,
        tuple(args),
        path,
        input_names=names + past_names,
        output_names=["logits"] + present_names,
        dynamic_axes={k: v for k, v in axes.items() if k in names + past_names + ["logits"] + present_names},
        opset_version=opset,
        custom_opsets={"com.microsoft": 1, "fused": 1},
        do_constant_folding=True,
    )
    m = onnx.load(path)
    m.producer_name = "pytorch"
    for node in m.graph.node:
        if node.domain == "fused":
            node.domain = ""
        if node.op_type.startswith("Skip"):
            # mean and inv_std_var are not needed; the sum only where the graph reads it (as onnxruntime's fusion leaves it).
            used = any(node.output[3] in n.input for n in m.graph.node)
            outputs = [node.output[0], "", "", node.output[3]] if used else [node.output[0]]
            del node.output[:]
            node.output.extend(outputs)
    del m.opset_import[:]
    m.opset_import.extend([helper.make_opsetid("", opset)])
    if any(n.domain == "com.microsoft" for n in m.graph.node):
        m.opset_import.extend([helper.make_opsetid("com.microsoft", 1)])
    onnx.save(m, path)


def constants_as_initializers(path):
    """Every Constant node's value as an initializer of the same name, as some exporters and optimizers store them."""
    m = onnx.load(path)
    g = m.graph
    kept = []
    for node in g.node:
        if node.op_type == "Constant" and node.attribute[0].name == "value":
            t = onnx.TensorProto()
            t.CopyFrom(node.attribute[0].t)
            t.name = node.output[0]
            g.initializer.append(t)
        else:
            kept.append(node)
    del g.node[:]
    g.node.extend(kept)
    onnx.save(m, path)


def quantize_dynamic_like(src, dst):
    """MatMul(x, W) → DynamicQuantizeLinear(x), MatMulInteger(x_q, W_q int8) and a rescale, and the token
    embedding's Gather on an int8 table → DequantizeLinear: what onnxruntime's quantize_dynamic writes."""
    m = onnx.load(src)
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    nodes = []
    for node in g.node:
        w = inits.get(node.input[1]) if node.op_type in ("MatMul", "Gather") and len(node.input) > 1 else None
        table = inits.get(node.input[0]) if node.op_type == "Gather" else None
        if node.op_type == "MatMul" and w is not None and len(w.dims) == 2:
            W = numpy_helper.to_array(w)
            scale = np.float32(np.abs(W).max() / 127.0)
            Wq = np.clip(np.round(W / scale), -127, 127).astype(np.int8)
            base = node.name or node.output[0]
            g.initializer.extend([
                numpy_helper.from_array(Wq, w.name + "_quantized"),
                numpy_helper.from_array(np.array(scale, np.float32), w.name + "_scale"),
                numpy_helper.from_array(np.array(0, np.int8), w.name + "_zero_point"),
            ])
            x = node.input[0]
            nodes += [
                helper.make_node("DynamicQuantizeLinear", [x], [x + "_quantized", x + "_scale", x + "_zero_point"], name=base + "_QuantizeLinear"),
                helper.make_node("MatMulInteger", [x + "_quantized", w.name + "_quantized", x + "_zero_point", w.name + "_zero_point"], [base + "_int32"], name=base + "_quant"),
                helper.make_node("Cast", [base + "_int32"], [base + "_float"], to=TensorProto.FLOAT, name=base + "_cast"),
                helper.make_node("Mul", [x + "_scale", w.name + "_scale"], [base + "_scales"], name=base + "_scales_mul"),
                helper.make_node("Mul", [base + "_float", base + "_scales"], [node.output[0]], name=base + "_output_scale_mul"),
            ]
        elif table is not None and len(table.dims) == 2 and table.name.endswith("wte.weight"):
            T = numpy_helper.to_array(table)
            scale = np.float32(np.abs(T).max() / 127.0)
            g.initializer.extend([
                numpy_helper.from_array(np.clip(np.round(T / scale), -127, 127).astype(np.int8), table.name + "_quantized"),
                numpy_helper.from_array(np.array(scale, np.float32), table.name + "_scale"),
                numpy_helper.from_array(np.array(0, np.int8), table.name + "_zero_point"),
            ])
            nodes += [
                helper.make_node("Gather", [table.name + "_quantized", node.input[1]], [node.output[0] + "_quantized"], name=node.name + "_quant"),
                helper.make_node("DequantizeLinear", [node.output[0] + "_quantized", table.name + "_scale", table.name + "_zero_point"], [node.output[0]], name=node.name + "_dequant"),
            ]
        else:
            nodes.append(node)
    del g.node[:]
    g.node.extend(nodes)
    used = {i for n in g.node for i in n.input}
    kept = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(kept)
    onnx.save(m, dst)


def write_weights(model, path):
    tensors = {n: p.detach().numpy().astype(np.float32) for n, p in model.named_parameters()}
    tensors.update({n: b.detach().numpy().astype(np.float32) for n, b in model.named_buffers()})
    index, offset = {}, 0
    for name, a in tensors.items():
        index[name] = [list(a.shape), offset]
        offset += a.size
    with open(path, "wb") as f:
        f.write((json.dumps(index) + "\n").encode())
        for a in tensors.values():
            f.write(a.astype("<f4").tobytes())


def refused_models():
    gamma = numpy_helper.from_array(np.linspace(0.5, 1.5, D).astype(np.float32), "ln.weight")
    beta = numpy_helper.from_array(np.linspace(-0.1, 0.1, D).astype(np.float32), "ln.bias")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch_size", "sequence_length", D])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch_size", "sequence_length", D])
    ln = lambda out, name: helper.make_node("LayerNormalization", ["x", "ln.weight", "ln.bias"], [out], name=name, axis=-1, epsilon=1e-5)

    def save(graph, name, opsets=(("", 17),)):
        model = helper.make_model(graph, producer_name="pytorch", opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
        model.ir_version = 8
        onnx.save(model, os.path.join(HERE, name))

    # As optimum's decoder_model_merged: the whole decoder, norms and all, in both branches of an If.
    cond = helper.make_tensor_value_info("use_cache_branch", TensorProto.BOOL, [1])
    then_branch = helper.make_graph([ln("y_then", "/transformer/ln_f/LayerNormalization")], "then", [], [helper.make_tensor_value_info("y_then", TensorProto.FLOAT, None)])
    else_branch = helper.make_graph([ln("y_else", "/transformer/ln_f/LayerNormalization_1")], "else", [], [helper.make_tensor_value_info("y_else", TensorProto.FLOAT, None)])
    node = helper.make_node("If", ["use_cache_branch"], ["y"], name="optimum::if", then_branch=then_branch, else_branch=else_branch)
    save(helper.make_graph([node], "merged", [x, cond], [y], [gamma, beta]), "norm-in-if.onnx")

    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]), ln("y_body", "/loop/ln/LayerNormalization")],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cond_in", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), helper.make_tensor_value_info("y_body", TensorProto.FLOAT, None)],
    )
    trip = numpy_helper.from_array(np.array(1, np.int64), "trip")
    loop = helper.make_node("Loop", ["trip", ""], ["y"], name="loop", body=body)
    save(helper.make_graph([loop], "loop", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [gamma, beta, trip]), "norm-in-loop.onnx")

    x16 = helper.make_tensor_value_info("x", TensorProto.FLOAT16, ["batch_size", "sequence_length", D])
    y16 = helper.make_tensor_value_info("y", TensorProto.FLOAT16, ["batch_size", "sequence_length", D])
    g16 = numpy_helper.from_array(np.linspace(0.5, 1.5, D).astype(np.float16), "ln.weight")
    b16 = numpy_helper.from_array(np.linspace(-0.1, 0.1, D).astype(np.float16), "ln.bias")
    save(helper.make_graph([ln("y", "/transformer/ln_f/LayerNormalization")], "fp16", [x16], [y16], [g16, b16]), "float16.onnx")

    external = onnx.TensorProto()
    external.CopyFrom(gamma)
    external.ClearField("raw_data")
    external.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "external-data.onnx.data"), ("offset", "0"), ("length", str(4 * D))):
        entry = external.external_data.add()
        entry.key, entry.value = key, value
    save(helper.make_graph([ln("y", "/transformer/ln_f/LayerNormalization")], "external", [x], [y], [external, beta]), "external-data.onnx")

    # Float32 γ over float16 activations (onnxruntime's mixed-precision SimplifiedLayerNormalization):
    # with their type stated (value_info), and without.
    cast = [
        helper.make_node("Cast", ["x"], ["x16"], to=TensorProto.FLOAT16, name="/cast_in/Cast"),
        helper.make_node("SimplifiedLayerNormalization", ["x16", "ln.weight"], ["y16"], name="/norm/SimplifiedLayerNormalization", axis=-1, epsilon=1e-6),
        helper.make_node("Cast", ["y16"], ["y"], to=TensorProto.FLOAT, name="/cast_out/Cast"),
    ]
    typed = [helper.make_tensor_value_info(n, TensorProto.FLOAT16, ["batch_size", "sequence_length", D]) for n in ("x16", "y16")]
    save(helper.make_graph(cast, "mixed", [x], [y], [gamma], value_info=typed), "float16-activations.onnx")
    save(helper.make_graph(cast, "mixed", [x], [y], [gamma]), "float16-activations-untyped.onnx")

    w = numpy_helper.from_array(np.eye(D, dtype=np.float32), "fc.weight")
    nodes = [helper.make_node("MatMul", ["x", "fc.weight"], ["h"], name="/fc/MatMul"), helper.make_node("Relu", ["h"], ["y"], name="/relu/Relu")]
    save(helper.make_graph(nodes, "mlp", [x], [y], [w]), "no-norm.onnx")


def main():
    torch.manual_seed(0)
    gpt2 = seeded(GPT2(), 29)
    export(gpt2, os.path.join(HERE, "gpt2-opset17.onnx"), 17)
    export(gpt2, os.path.join(HERE, "gpt2-opset14.onnx"), 14)
    quantize_dynamic_like(os.path.join(HERE, "gpt2-opset14.onnx"), os.path.join(HERE, "gpt2-q8-opset14.onnx"))
    write_weights(gpt2, os.path.join(HERE, "gpt2.weights.bin"))
    nopos = GPT2(positions=False)
    nopos.load_state_dict(gpt2.state_dict())
    export(nopos.eval(), os.path.join(HERE, "gpt2-nopos-opset14.onnx"), 14, positions=False)
    constants_as_initializers(os.path.join(HERE, "gpt2-nopos-opset14.onnx"))
    fused = GPT2(fused=True)
    fused.load_state_dict(gpt2.state_dict())
    export(fused.eval(), os.path.join(HERE, "gpt2-fused.onnx"), 17)

    biasfree = seeded(GPT2(bias=False), 31)
    export(biasfree, os.path.join(HERE, "gpt2-biasfree-opset14.onnx"), 14)
    export(biasfree, os.path.join(HERE, "gpt2-biasfree-opset17.onnx"), 17)
    write_weights(biasfree, os.path.join(HERE, "gpt2-biasfree.weights.bin"))

    llama = seeded(Llama(), 37)
    export(llama, os.path.join(HERE, "llama-opset14.onnx"), 14)
    write_weights(llama, os.path.join(HERE, "llama.weights.bin"))
    llama_fused = Llama(fused=True)
    llama_fused.load_state_dict(llama.state_dict())
    export(llama_fused.eval(), os.path.join(HERE, "llama-fused.onnx"), 17)

    refused_models()


if __name__ == "__main__":
    main()
