"""Write the tiny random-weight GGUF model the llama-server integration suite serves.

Usage::

    python tests/integration/make_tiny_model.py --gguf-py DIR OUT.gguf [--seed N]

``DIR`` is the ``gguf-py`` folder of the llama.cpp sources (vendored in the llama-cpp-python
sdist, see ``build_llama_server.sh``); it needs ``numpy`` and ``pyyaml``. The model is a 2-layer
llama (64 wide; half a megabyte of float32 weights) with a byte-level BPE vocabulary and a
Qwen2.5-style chat template. Its weights are random, so its text is noise, but it is shaped so
that llama-server's grammar turns that noise into real protocol:

* one hidden dimension is constant (the embeddings set it, no layer writes it), and the output
  row of each token reads it, which gives every token a fixed logit bias: printable ASCII is
  likely, other bytes are never sampled, ``<|im_end|>`` is likely enough that replies end, and
  ``</think>`` ends reasoning after some tokens;
* the template's ``<tool_call>``/``</tool_call>`` markers have no newline inside them (a random
  model never types the newline, so a ``"<tool_call>\\n"`` opener would never start a call), so
  with ``tool_choice: "required"`` the server's grammar makes it emit real calls;
* with ``chat_template_kwargs.enable_thinking`` true the generation prompt opens ``<think>``,
  so the reply starts as reasoning.

Nothing is downloaded and nothing is trained; the same seed writes the same bytes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

N_EMBD = 64
N_HEAD = 4
N_FF = 128
N_LAYER = 2
N_CTX_TRAIN = 8192

# Frequent pairs of the prompts the suite sends; each merge shortens prompts a little.
MERGES = [
    "Ġ t",
    "Ġ a",
    "h e",
    "i n",
    "r e",
    "o n",
    "Ġt he",
    "e r",
    "Ġ s",
    "a t",
    "Ġ w",
    "o r",
    "e n",
    "Ġ c",
    "i s",
    "a n",
    "e s",
    "Ġ o",
    "Ġ f",
    "Ġ p",
    "Ġ b",
    "Ġ m",
    "Ġ d",
    "l e",
    "a r",
    "a l",
    "Ġ in",
    "i t",
    "o u",
    "Ġ n",
    "Ġ h",
    "t i",
    "e d",
    "Ġ (",
    '" :',
    'Ġ "',
]
# Whole multi-byte characters as tokens, so replies carry real UTF-8 (split across reads,
# QUIRKS A1); their partial byte sequences are never sampled alone.
MULTIBYTE = ["é", "€", "🙂"]
SPECIALS = {  # token -> (llama.cpp token type, logit bias)
    "<|endoftext|>": (3, -30.0),  # CONTROL
    "<|im_start|>": (3, -30.0),
    "<|im_end|>": (3, 1.0),  # end of the reply: roughly one token in sixty
    "<tool_call>": (4, 1.0),  # USER_DEFINED: matched in text as one token
    "</tool_call>": (4, -30.0),  # only where the grammar puts it
    "<tool_response>": (4, -30.0),
    "</tool_response>": (4, -30.0),
    "<think>": (4, -30.0),
    "</think>": (4, 0.5),
}

TEMPLATE = """\
{%- if tools %}
{{- '<|im_start|>system\\n' }}
{%- if messages[0].role == 'system' %}{{- messages[0].content + '\\n\\n' }}{%- endif %}
{{- '# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\n' }}
{{- 'You are provided with function signatures within <tools></tools> XML tags:\\n<tools>' }}
{%- for tool in tools %}{{- '\\n' }}{{- tool | tojson }}{%- endfor %}
{{- '\\n</tools>\\n\\nFor each function call, return a json object with function name and ' }}
{{- 'arguments within <tool_call></tool_call> XML tags:\\n' }}
{{- '<tool_call>{"name": <function-name>, "arguments": <args-json-object>}</tool_call>' }}
{{- '<|im_end|>\\n' }}
{%- elif messages[0].role == 'system' %}
{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}
{%- endif %}
{%- for message in messages %}
{%- if message.role == 'user' or (message.role == 'system' and not loop.first) %}
{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}
{%- elif message.role == 'assistant' %}
{{- '<|im_start|>assistant\\n' }}
{%- if message.reasoning_content %}
{{- '<think>\\n' + message.reasoning_content + '</think>\\n\\n' }}
{%- endif %}
{%- if message.content %}{{- message.content }}{%- endif %}
{%- for tool_call in message.tool_calls %}
{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}
{{- '<tool_call>{"name": "' + tool_call.name + '", "arguments": ' }}
{%- if tool_call.arguments is string %}{{- tool_call.arguments }}
{%- else %}{{- tool_call.arguments | tojson }}{%- endif %}
{{- '}</tool_call>' }}
{%- endfor %}
{{- '<|im_end|>\\n' }}
{%- elif message.role == 'tool' %}
{%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}
{{- '<|im_start|>user' }}
{%- endif %}
{{- '\\n<tool_response>\\n' + message.content + '\\n</tool_response>' }}
{%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}
{{- '<|im_end|>\\n' }}
{%- endif %}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
{{- '<|im_start|>assistant\\n' }}
{%- if enable_thinking is defined and enable_thinking %}{{- '<think>\\n' }}{%- endif %}
{%- endif %}
"""


def byte_tokens() -> list[str]:
    """GPT-2's byte-to-unicode alphabet: token ``b`` is byte ``b``."""
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    mapping, extra = {}, 0
    for b in range(256):
        if b in printable:
            mapping[b] = chr(b)
        else:
            mapping[b] = chr(256 + extra)
            extra += 1
    return [mapping[b] for b in range(256)]


def byte_bias(b: int) -> float:
    if (chr(b).isalpha() and b < 128) or b == 0x20:
        return 1.0  # letters and spaces: text that looks a little like words
    if b == 0x22:
        return 2.5  # '"': ends grammar-constrained strings sooner
    if b == 0x0A:
        return -1.0
    if 0x20 < b < 0x7F:
        return 0.0
    return -30.0  # control bytes and lone UTF-8 bytes are never sampled


def multibyte_merges(alphabet: list[str]) -> list[tuple[str, bool]]:
    """The merges that spell each of ``MULTIBYTE`` (and whether a merge completes one)."""
    out: list[tuple[str, bool]] = []
    for char in MULTIBYTE:
        pieces = [alphabet[b] for b in char.encode("utf-8")]
        done = pieces[0]
        for i, piece in enumerate(pieces[1:], start=2):
            out.append((f"{done} {piece}", i == len(pieces)))
            done += piece
    return out


def build(np: Any, seed: int) -> tuple[list[str], list[int], list[float], dict[str, Any]]:
    """The vocabulary (tokens, types, biases) and the weights."""
    tokens = byte_tokens()
    types = [1] * 256  # NORMAL
    biases = [byte_bias(b) for b in range(256)]
    for merge in MERGES:
        tokens.append(merge.replace(" ", ""))
        types.append(1)
        biases.append(0.0)
    for merge, whole in multibyte_merges(tokens[:256]):
        tokens.append(merge.replace(" ", ""))
        types.append(1)
        biases.append(0.0 if whole else -30.0)
    for token, (kind, bias) in SPECIALS.items():
        tokens.append(token)
        types.append(kind)
        biases.append(bias)
    assert len(set(tokens)) == len(tokens), "duplicate token"
    n_vocab = len(tokens)
    rng = np.random.default_rng(seed)

    def normal(*shape: int, scale: float) -> Any:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    embd = normal(n_vocab, N_EMBD, scale=1.0)
    embd[:, 0] = 1.0  # the constant dimension the output biases read
    output = normal(n_vocab, N_EMBD, scale=1.0 / np.sqrt(N_EMBD))
    output[:, 0] = np.asarray(biases, dtype=np.float32)
    tensors: dict[str, Any] = {
        "token_embd.weight": embd,
        "output_norm.weight": np.ones(N_EMBD, dtype=np.float32),
        "output.weight": output,
    }
    for i in range(N_LAYER):
        attn_out = normal(N_EMBD, N_EMBD, scale=0.5 / np.sqrt(N_EMBD))
        attn_out[0, :] = 0.0  # no layer writes the constant dimension
        down = normal(N_EMBD, N_FF, scale=0.5 / np.sqrt(N_FF))
        down[0, :] = 0.0
        tensors |= {
            f"blk.{i}.attn_norm.weight": np.ones(N_EMBD, dtype=np.float32),
            f"blk.{i}.attn_q.weight": normal(N_EMBD, N_EMBD, scale=1.0 / np.sqrt(N_EMBD)),
            f"blk.{i}.attn_k.weight": normal(N_EMBD, N_EMBD, scale=1.0 / np.sqrt(N_EMBD)),
            f"blk.{i}.attn_v.weight": normal(N_EMBD, N_EMBD, scale=1.0 / np.sqrt(N_EMBD)),
            f"blk.{i}.attn_output.weight": attn_out,
            f"blk.{i}.ffn_norm.weight": np.ones(N_EMBD, dtype=np.float32),
            f"blk.{i}.ffn_gate.weight": normal(N_FF, N_EMBD, scale=1.0 / np.sqrt(N_EMBD)),
            f"blk.{i}.ffn_up.weight": normal(N_FF, N_EMBD, scale=1.0 / np.sqrt(N_EMBD)),
            f"blk.{i}.ffn_down.weight": down,
        }
    return tokens, types, biases, tensors


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the .gguf file to write")
    parser.add_argument("--gguf-py", type=Path, required=True, help="llama.cpp's gguf-py folder")
    parser.add_argument("--seed", type=int, default=19)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(args.gguf_py))
    import gguf
    import numpy as np

    tokens, types, _, tensors = build(np, args.seed)
    ids = {t: i for i, t in enumerate(tokens)}
    writer = gguf.GGUFWriter(str(args.out), "llama")
    writer.add_name("llmkit-tiny-random")
    writer.add_context_length(N_CTX_TRAIN)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_rope_dimension_count(N_EMBD // N_HEAD)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_vocab_size(len(tokens))
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen2")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(MERGES + [m for m, _ in multibyte_merges(tokens[:256])])
    writer.add_bos_token_id(ids["<|endoftext|>"])
    writer.add_eos_token_id(ids["<|im_end|>"])
    writer.add_eot_token_id(ids["<|im_end|>"])
    writer.add_pad_token_id(ids["<|endoftext|>"])
    writer.add_add_bos_token(False)
    writer.add_chat_template(TEMPLATE)
    for name, array in tensors.items():
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    print(args.out)


if __name__ == "__main__":
    main()
