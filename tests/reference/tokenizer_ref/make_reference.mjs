// Writes the reference tokenization of every test sentence, one JSON object per line, for the
// AttnScope tokenizer parity tests (tests/core/tokenize/tokenizer_parity_test.cpp).
//
// Two references run side by side:
//   - @huggingface/tokenizers (tokenizers.js, pure JavaScript): the reference named by the
//     project. It returns ids and tokens but no offsets.
//   - tokenizers (the Rust `tokenizers` crate through its Node bindings): Hugging Face's own
//     implementation. It returns offsets (in code points), so spans can be compared too, and it
//     decides the few sentences on which tokenizers.js departs from the Rust crate.
//
// Usage:
//   node make_reference.mjs --out-dir DIR [--skip-unless PATH] [--conllu-dir DIR]
//                           [--extra FILE.json] --model NAME=PATH/tokenizer.json [--model ...]
// With --skip-unless, a missing PATH (the shared data folder) exits with code 77 (CTest's
// SKIP_RETURN_CODE) after saying so. Missing node_modules exit 1 with the command to run.
// Sentences are every "# text = " line of every *.conllu file under --conllu-dir (sorted by
// path), then the strings of the JSON array in --extra. For each model NAME it writes
// DIR/NAME.jsonl with lines {"source", "text", "ids", "rs_ids", "rs_offsets"} and prints how many
// sentences the two references disagree on. Where the Rust crate fails on a sentence (a WordLevel
// model whose unk_token is not in its vocabulary, on an unknown word), the line has "rs_error"
// (the crate's message) instead of "rs_ids" and "rs_offsets", and "ids" is null when
// tokenizers.js fails too (it gives undefined ids there); the parity test then expects AttnScope
// to refuse the sentence as well.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const kSkip = 77;

async function loadReferences() {
    try {
        const js = await import('@huggingface/tokenizers');
        const rust = createRequire(import.meta.url)('tokenizers');
        return { JsTokenizer: js.Tokenizer, rust };
    } catch (err) {
        throw new Error(`${err.message}\nInstall the reference packages with ` +
            '`packaging/install-deps.sh --test` (npm ci in tests/reference/tokenizer_ref).');
    }
}

function parseArgs(argv) {
    const args = { models: [], outDir: null, conlluDir: null, extra: null, skipUnless: null };
    for (let i = 0; i < argv.length; ++i) {
        const value = argv[i + 1];
        switch (argv[i]) {
            case '--out-dir': args.outDir = value; ++i; break;
            case '--conllu-dir': args.conlluDir = value; ++i; break;
            case '--extra': args.extra = value; ++i; break;
            case '--skip-unless': args.skipUnless = value; ++i; break;
            case '--model': {
                const eq = value.indexOf('=');
                if (eq <= 0) throw new Error(`--model expects NAME=PATH, got "${value}"`);
                args.models.push({ name: value.slice(0, eq), file: value.slice(eq + 1) });
                ++i;
                break;
            }
            default: throw new Error(`unknown argument "${argv[i]}"`);
        }
    }
    if (!args.outDir || args.models.length === 0) {
        throw new Error('usage: make_reference.mjs --out-dir DIR --model NAME=PATH [...]');
    }
    return args;
}

function conlluFiles(dir) {
    const out = [];
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) out.push(...conlluFiles(full));
        else if (entry.name.endsWith('.conllu')) out.push(full);
    }
    return out.sort();
}

function collectSentences(args) {
    const sentences = [];
    if (args.conlluDir) {
        const prefix = '# text = ';
        for (const file of conlluFiles(args.conlluDir)) {
            const rel = path.relative(args.conlluDir, file);
            const lines = fs.readFileSync(file, 'utf8').split('\n');
            lines.forEach((line, i) => {
                if (line.startsWith(prefix)) {
                    sentences.push({ source: `${rel}:${i + 1}`, text: line.slice(prefix.length) });
                }
            });
        }
    }
    if (args.extra) {
        const extra = JSON.parse(fs.readFileSync(args.extra, 'utf8'));
        extra.forEach((text, i) => sentences.push({ source: `extra:${i}`, text }));
    }
    return sentences;
}

// The Rust crate's encodings, or {error} for a sentence it refuses. One batch call when it can:
// a promise per sentence would spend most of the time in the bindings. A batch with a refused
// sentence fails as a whole, so then each sentence is encoded alone.
async function rustEncodings(rustTokenizer, sentences) {
    const texts = sentences.map((s) => s.text);
    try {
        return await rustTokenizer.encodeBatch(texts);
    } catch {
        const out = [];
        for (const text of texts) {
            try {
                out.push(await rustTokenizer.encode(text));
            } catch (err) {
                out.push({ error: err.message });
            }
        }
        return out;
    }
}

async function writeModel(refs, model, sentences, outDir) {
    const json = JSON.parse(fs.readFileSync(model.file, 'utf8'));
    const jsTokenizer = new refs.JsTokenizer(json, {});
    const rustTokenizer = refs.rust.Tokenizer.fromFile(model.file);
    const encodings = await rustEncodings(rustTokenizer, sentences);
    const lines = [];
    let disagreements = 0;
    let refused = 0;
    sentences.forEach((s, i) => {
        const ids = jsTokenizer.encode(s.text).ids;
        const jsFailed = ids.some((id) => id === undefined);
        const encoding = encodings[i];
        const line = { source: s.source, text: s.text, ids: jsFailed ? null : ids };
        if (encoding.error !== undefined) {
            ++refused;
            line.rs_error = encoding.error;
        } else {
            line.rs_ids = encoding.getIds();
            line.rs_offsets = encoding.getOffsets();
        }
        if (JSON.stringify(line.ids ?? null) !== JSON.stringify(line.rs_ids ?? null)) {
            ++disagreements;
            console.log(`${model.name}: references disagree on ${s.source}: ${JSON.stringify(s.text)}`);
        }
        lines.push(JSON.stringify(line));
    });
    fs.writeFileSync(path.join(outDir, `${model.name}.jsonl`), lines.join('\n') + '\n');
    console.log(`${model.name}: ${sentences.length} sentences, ${disagreements} disagreements, ` +
                `${refused} refused by the Rust crate`);
}

async function main() {
    const args = parseArgs(process.argv.slice(2));
    if (args.skipUnless && !fs.existsSync(args.skipUnless)) {
        console.log(`SKIP: ${args.skipUnless} not found; no reference tokenization written`);
        process.exit(kSkip);
    }
    const refs = await loadReferences();
    const sentences = collectSentences(args);
    fs.mkdirSync(args.outDir, { recursive: true });
    for (const model of args.models) {
        await writeModel(refs, model, sentences, args.outDir);
    }
}

main().catch((err) => {
    console.error(`make_reference: ${err.message}`);
    process.exit(1);
});
