/** What the element says to introduce the forms other than LayerNorm, loaded when weights of that form come. */
export const INTRO = {
  biasfree:
    "This LayerNorm has a gain and no bias. It subtracts the mean μ of one token's d features, divides by their standard deviation √(σ² + ε) so that the result x̂ has mean 0 and variance 1, then gives every feature its own learned gain γᵢ: y = γ ⊙ x̂. Nothing is shared across tokens, so the output has the input's shape.",
  rmsnorm:
    "These weights are an RMSNorm's, as in Llama and most newer models. RMSNorm looks at one token at a time too, but subtracts no mean: it divides that token's d features by their root mean square √(mean(x²) + ε), so that the result x̂ has mean square 1, then gives every feature its own learned gain γᵢ. There is no β. Nothing is shared across tokens, so the output has the input's shape.",
};
