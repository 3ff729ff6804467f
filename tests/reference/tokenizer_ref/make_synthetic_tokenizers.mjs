// Writes tokenizer folders in the layouts of models whose real tokenizer files are not available
// offline, for the tokenizer parity tests. Each gets the exact normalizer / pre-tokenizer /
// post-processor sections its model family ships, on a real vocabulary:
//   llama3-style       Llama 3: Split(Llama-3 regex, Isolated) + ByteLevel(use_regex=false),
//                      ignore_merges, <|begin_of_text|> template; GPT-2's byte-level vocab/merges.
//   qwen2-style        Qwen2: NFC, Split(Qwen2 regex: single digits) + ByteLevel(use_regex=false),
//                      ByteLevel post-processor, <|im_start|>/<|im_end|>; GPT-2's vocab/merges.
//   llama2-metaspace   Llama 2 as transformers converts tokenizer.model with legacy=false
//                      (TinyLlama): no normalizer, Metaspace(prepend_scheme first, split false),
//                      added tokens not normalized; Llama 2's vocab/merges.
//   llama2-metaspace-split  the older Metaspace (add_prefix_space, split true), as early Llama 2
//                      and Mistral conversions wrote it.
// Usage: node make_synthetic_tokenizers.mjs --out-dir DIR --tokenizers SHARED/data/tokenizers
// Writes DIR/<name>/tokenizer.json and tokenizer_config.json. A missing --tokenizers folder
// exits with 77 (CTest's SKIP_RETURN_CODE) after saying so. The outputs live in the build tree.
import fs from 'node:fs';
import path from 'node:path';

const kSkip = 77;

// The patterns exactly as the models' tokenizer.json files give them.
const kLlama3Regex = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}|" +
    " ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const kQwen2Regex = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}|" +
    " ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

function parseArgs(argv) {
    const args = {};
    for (let i = 0; i < argv.length; i += 2) {
        if (argv[i] === '--out-dir') args.outDir = argv[i + 1];
        else if (argv[i] === '--tokenizers') args.tokenizers = argv[i + 1];
        else throw new Error(`unknown argument "${argv[i]}"`);
    }
    if (!args.outDir || !args.tokenizers) {
        throw new Error('usage: make_synthetic_tokenizers.mjs --out-dir DIR --tokenizers DIR');
    }
    return args;
}

function added(id, content) {
    return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false,
             special: true };
}

function bpeModel(source, extra) {
    return { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null,
             end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, ...extra,
             vocab: source.model.vocab, merges: source.model.merges };
}

function byteLevel(addPrefixSpace, trimOffsets, useRegex) {
    return { type: 'ByteLevel', add_prefix_space: addPrefixSpace, trim_offsets: trimOffsets,
             use_regex: useRegex };
}

function split(regex) {
    return { type: 'Split', pattern: { Regex: regex }, behavior: 'Isolated', invert: false };
}

function template(token, id) {
    return { type: 'TemplateProcessing',
             single: [{ SpecialToken: { id: token, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
             pair: [{ SpecialToken: { id: token, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
                    { SpecialToken: { id: token, type_id: 1 } }, { Sequence: { id: 'B', type_id: 1 } }],
             special_tokens: { [token]: { id: token, ids: [id], tokens: [token] } } };
}

function llama3(gpt2) {
    const n = Object.keys(gpt2.model.vocab).length;  // 50257: specials follow the vocabulary
    const names = ['<|begin_of_text|>', '<|end_of_text|>', '<|start_header_id|>',
                   '<|end_header_id|>', '<|eot_id|>'];
    const json = {
        version: '1.0', truncation: null, padding: null,
        added_tokens: names.map((name, i) => added(n + i, name)),
        normalizer: null,
        pre_tokenizer: { type: 'Sequence',
                         pretokenizers: [split(kLlama3Regex), byteLevel(false, true, false)] },
        post_processor: { type: 'Sequence',
                          processors: [byteLevel(true, false, true), template(names[0], n)] },
        decoder: byteLevel(true, true, true),
        model: bpeModel(gpt2, { ignore_merges: true }),
    };
    const config = { tokenizer_class: 'PreTrainedTokenizerFast', bos_token: names[0],
                     eos_token: names[1], model_max_length: 8192 };
    return { json, config };
}

function qwen2(gpt2) {
    const n = Object.keys(gpt2.model.vocab).length;
    const json = {
        version: '1.0', truncation: null, padding: null,
        added_tokens: [added(50256, '<|endoftext|>'), added(n, '<|im_start|>'),
                       added(n + 1, '<|im_end|>')],
        normalizer: { type: 'NFC' },
        pre_tokenizer: { type: 'Sequence',
                         pretokenizers: [split(kQwen2Regex), byteLevel(false, false, false)] },
        post_processor: byteLevel(false, false, false),
        decoder: byteLevel(false, false, false),
        model: bpeModel(gpt2, { continuing_subword_prefix: '', end_of_word_suffix: '',
                                ignore_merges: false }),
    };
    const config = { tokenizer_class: 'Qwen2Tokenizer', bos_token: null,
                     eos_token: '<|endoftext|>', pad_token: '<|endoftext|>' };
    return { json, config };
}

function llama2Metaspace(llama2, metaspace) {
    const json = structuredClone(llama2);
    json.normalizer = null;
    json.pre_tokenizer = { type: 'Metaspace', replacement: '\u2581', ...metaspace };
    json.added_tokens = json.added_tokens.map((t) => ({ ...t, normalized: false }));
    const config = { tokenizer_class: 'LlamaTokenizer', add_bos_token: true, add_eos_token: false,
                     legacy: false, bos_token: '<s>', eos_token: '</s>', unk_token: '<unk>' };
    return { json, config };
}

function main() {
    const args = parseArgs(process.argv.slice(2));
    if (!fs.existsSync(args.tokenizers)) {
        console.log(`SKIP: ${args.tokenizers} not found; no synthetic tokenizers written`);
        process.exit(kSkip);
    }
    const read = (rel) => JSON.parse(fs.readFileSync(path.join(args.tokenizers, rel), 'utf8'));
    const gpt2 = read('gpt2/tokenizer.json');
    const llama2 = read('llama-2/tokenizer.json');
    const outputs = {
        'llama3-style': llama3(gpt2),
        'qwen2-style': qwen2(gpt2),
        'llama2-metaspace': llama2Metaspace(llama2, { prepend_scheme: 'first', split: false }),
        'llama2-metaspace-split': llama2Metaspace(llama2, { add_prefix_space: true }),
    };
    for (const [name, { json, config }] of Object.entries(outputs)) {
        const dir = path.join(args.outDir, name);
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(json));
        fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(config, null, 1));
        console.log(`wrote ${path.join(dir, 'tokenizer.json')}`);
    }
}

try {
    main();
} catch (err) {
    console.error(`make_synthetic_tokenizers: ${err.message}`);
    process.exit(1);
}
