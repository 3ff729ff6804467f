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
//   unigram-bytefallback-first  a Unigram model with byte_fallback (t5-small's pieces plus the
//                      256 <0xXX> pieces): Strip + Replace(Regex \s+ -> ' ') + Lowercase
//                      normalizers, Metaspace(prepend_scheme first, split true).
//   unigram-precompiled-never  t5-small's Unigram and Precompiled charsmap with
//                      Metaspace(prepend_scheme never), XLM-R's <s> $A </s> template.
//   unigram-albert-style  ALBERT's normalizers (Replace `` and '' by ", NFKD, StripAccents,
//                      Lowercase, Precompiled) and WhitespaceSplit + Metaspace, on t5-small's
//                      pieces; [CLS] $A [SEP] as <pad> $A </s>.
//   unigram-spm-converter  t5-small's Unigram as transformers' SpmConverter writes it today:
//                      Precompiled, Strip(right), Replace(Regex " {2,}" -> "▁"), then
//                      Metaspace(prepend_scheme always, split true).
//   wordlevel-whitespace  an old-format WordLevel model (no "type") with bert-base-uncased's
//                      whole-word pieces and [UNK], Lowercase + WhitespaceSplit.
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

function unigramModel(t5, extra) {
    return { type: 'Unigram', unk_id: t5.model.unk_id, vocab: t5.model.vocab,
             byte_fallback: false, ...extra };
}

function metaspace(prependScheme, split) {
    return { type: 'Metaspace', replacement: '\u2581', prepend_scheme: prependScheme, split };
}

function t5Based(t5, fields) {
    return { version: '1.0', truncation: null, padding: null, added_tokens: t5.added_tokens,
             decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always',
                        split: true },
             post_processor: t5.post_processor, ...fields };
}

function unigramByteFallback(t5) {
    const bytes = [];
    for (let b = 0; b < 256; ++b) {
        bytes.push([`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`, 0.0]);
    }
    const json = t5Based(t5, {
        normalizer: { type: 'Sequence', normalizers: [
            { type: 'Strip', strip_left: true, strip_right: true },
            { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' },
            { type: 'Lowercase' }] },
        pre_tokenizer: metaspace('first', true),
        model: unigramModel(t5, { byte_fallback: true, vocab: [...t5.model.vocab, ...bytes] }),
    });
    return { json, config: { tokenizer_class: 'PreTrainedTokenizerFast' } };
}

function unigramPrecompiledNever(t5) {
    const specials = { '<pad>': 0, '</s>': 1 };  // t5 has no <s>: its <pad> stands in
    const json = t5Based(t5, {
        normalizer: t5.normalizer,
        pre_tokenizer: metaspace('never', true),
        post_processor: { type: 'TemplateProcessing',
                          single: [{ SpecialToken: { id: '<pad>', type_id: 0 } },
                                   { Sequence: { id: 'A', type_id: 0 } },
                                   { SpecialToken: { id: '</s>', type_id: 0 } }],
                          pair: [{ Sequence: { id: 'A', type_id: 0 } },
                                 { Sequence: { id: 'B', type_id: 0 } }],
                          special_tokens: Object.fromEntries(Object.entries(specials).map(
                              ([t, id]) => [t, { id: t, ids: [id], tokens: [t] }])) },
        model: unigramModel(t5, {}),
    });
    return { json, config: { tokenizer_class: 'XLMRobertaTokenizer' } };
}

function unigramAlbertStyle(t5) {
    const replace = (from, to) => ({ type: 'Replace', pattern: { String: from }, content: to });
    const json = t5Based(t5, {
        normalizer: { type: 'Sequence', normalizers: [
            replace('``', '"'), replace("''", '"'), { type: 'NFKD' }, { type: 'StripAccents' },
            { type: 'Lowercase' }, t5.normalizer] },
        pre_tokenizer: { type: 'Sequence', pretokenizers: [
            { type: 'WhitespaceSplit' },
            { type: 'Metaspace', replacement: '\u2581', add_prefix_space: true }] },
        post_processor: template('</s>', 1),
        model: unigramModel(t5, {}),
    });
    return { json, config: { tokenizer_class: 'AlbertTokenizer' } };
}

function unigramSpmConverter(t5) {
    const json = t5Based(t5, {
        normalizer: { type: 'Sequence', normalizers: [
            t5.normalizer, { type: 'Strip', strip_left: false, strip_right: true },
            { type: 'Replace', pattern: { Regex: ' {2,}' }, content: '\u2581' }] },
        pre_tokenizer: metaspace('always', true),
        model: unigramModel(t5, {}),
    });
    return { json, config: { tokenizer_class: 'T5Tokenizer' } };
}

function wordLevelWhitespace(bert) {
    const vocab = Object.fromEntries(
        Object.entries(bert.model.vocab).filter(([piece]) => !piece.startsWith('##')));
    const json = {
        version: '1.0', truncation: null, padding: null,
        added_tokens: bert.added_tokens,
        normalizer: { type: 'Lowercase' },
        pre_tokenizer: { type: 'WhitespaceSplit' },
        post_processor: bert.post_processor,
        decoder: null,
        model: { vocab, unk_token: '[UNK]' },  // the old format: no "type"
    };
    return { json, config: { tokenizer_class: 'PreTrainedTokenizerFast' } };
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
    const t5 = read('t5-small/tokenizer.json');
    const bert = read('bert-base-uncased/tokenizer.json');
    const outputs = {
        'llama3-style': llama3(gpt2),
        'qwen2-style': qwen2(gpt2),
        'llama2-metaspace': llama2Metaspace(llama2, { prepend_scheme: 'first', split: false }),
        'llama2-metaspace-split': llama2Metaspace(llama2, { add_prefix_space: true }),
        'unigram-bytefallback-first': unigramByteFallback(t5),
        'unigram-precompiled-never': unigramPrecompiledNever(t5),
        'unigram-albert-style': unigramAlbertStyle(t5),
        'unigram-spm-converter': unigramSpmConverter(t5),
        'wordlevel-whitespace': wordLevelWhitespace(bert),
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
