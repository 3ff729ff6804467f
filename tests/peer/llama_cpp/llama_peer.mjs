// llama.cpp peer of AttnScope's GGUF tests: an independent implementation (llama.cpp itself, through
// npm node-llama-cpp 3.21.1 and its prebuilt CPU binaries) that reads, tokenizes and runs GGUF files.
//
//   node llama_peer.mjs meta     FILE [--full]
//   node llama_peer.mjs tokenize FILE --texts TEXTS.json [--special]
//   node llama_peer.mjs greedy   FILE --prompt-ids 1,2,3 [--n 32] [--threads 1] [--kv-type F32|F16]
//                                     [--flash-attn]
//   node llama_peer.mjs time     FILE [--n 128] [--threads 1] [--rounds 5] [--kv-type F32|F16] [--flash-attn]
//   node llama_peer.mjs serve    FILE [--max-n 512] [--threads 1] [--kv-type F32|F16] [--flash-attn]
//                                     (requests: prompt passes, or greedy generations timed per token)
//   every command also takes --modules DIR: the folder setup_llama_peer.sh installed node_modules
//   into (default $ATTNSCOPE_LLAMA_PEER_DIR, else this file's folder).
//
// Prints exactly one JSON document on stdout (serve: its reply lines first); llama.cpp's and
// node-llama-cpp's logs go to stderr.
// Exit 0 on success, 1 on a runtime error, 2 on bad usage, 77 when node-llama-cpp is not installed
// (CTest's SKIP_RETURN_CODE). README.md here lists the JSON shapes.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Anything node-llama-cpp writes with console.log/info must not reach stdout, which carries the
// JSON document only.
console.log = console.info = console.debug = (...args) => console.error(...args);

const USAGE = 'usage: node llama_peer.mjs meta|tokenize|greedy|time|serve MODEL.gguf [options] (see its header)';
const FLAGS = new Set(['--full', '--special', '--flash-attn']);

class UsageError extends Error {}
class PeerMissing extends Error {}  // exit 77: CTest's SKIP_RETURN_CODE

function parseArgs(argv) {
    const [command, model, ...rest] = argv;
    if (!['meta', 'tokenize', 'greedy', 'time', 'serve'].includes(command) || !model) throw new UsageError(USAGE);
    const opts = {};
    for (let i = 0; i < rest.length; ++i) {
        const arg = rest[i];
        if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${arg}\n${USAGE}`);
        if (FLAGS.has(arg)) opts[arg.slice(2)] = true;
        else if (i + 1 < rest.length) opts[arg.slice(2)] = rest[++i];
        else throw new UsageError(`${arg} needs a value`);
    }
    return { command, model, opts };
}

function intOption(opts, name, fallback, min = 1) {
    const value = opts[name] === undefined ? fallback : Number(opts[name]);
    if (!Number.isInteger(value) || value < min) {
        throw new UsageError(`--${name} must be an integer >= ${min}`);
    }
    return value;
}

// The KV cache defaults to F32 here (llama.cpp's own default is F16): with F16 K/V the logits of a
// tiny random F32 model drift by ~1e-2 from a float64 reference, with F32 by ~5e-6.
// --flash-attn (off by default) also costs precision on CPU (~1e-2).
function kvTypeOption(opts) {
    const type = (opts['kv-type'] ?? 'F32').toUpperCase();
    if (type !== 'F16' && type !== 'F32') throw new UsageError('--kv-type must be F16 or F32');
    return type;
}

// node-llama-cpp lives in DIR/node_modules (a build folder), not beside this file, so it is imported
// by path through its package.json "exports" rather than by bare name.
async function importNodeLlamaCpp(opts) {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const dir = opts.modules ?? process.env.ATTNSCOPE_LLAMA_PEER_DIR ?? here;
    const pkgDir = path.resolve(dir, 'node_modules', 'node-llama-cpp');
    if (!fs.existsSync(path.join(pkgDir, 'package.json'))) {
        throw new PeerMissing(`node-llama-cpp is not installed under ${dir}; run setup_llama_peer.sh ${dir}`);
    }
    const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
    const entry = pkg.exports?.['.']?.import ?? pkg.main;
    const lib = await import(pathToFileURL(path.join(pkgDir, entry)).href);
    return { lib, version: pkg.version };
}

// JSON has no bigint, NaN or Infinity: 64-bit GGUF integers become numbers when exact, else strings.
function jsonSafe(value) {
    if (typeof value === 'bigint') {
        return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
            ? Number(value) : value.toString();
    }
    if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
    if (Array.isArray(value)) return value.map(jsonSafe);
    return value;
}

// node-llama-cpp nests metadata by the dots of its keys; GGUF keys are flat, so flatten it back.
function flattenMetadata(node, prefix, out, full) {
    for (const [key, value] of Object.entries(node)) {
        const name = prefix ? `${prefix}.${key}` : key;
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
            flattenMetadata(value, name, out, full);
        } else if (Array.isArray(value) && !full && value.length > 16) {
            out[name] = { array_length: value.length, head: jsonSafe(value.slice(0, 8)) };
        } else {
            out[name] = jsonSafe(value);
        }
    }
    return out;
}

// meta needs no llama.cpp binary: readGgufFileInfo is node-llama-cpp's own GGUF parser (JS).
async function commandMeta(lib, file, opts) {
    const info = await lib.readGgufFileInfo(file, {
        readTensorInfo: true, logWarnings: false, sourceType: 'filesystem',
    });
    const metadata = flattenMetadata(info.metadata, '', {}, Boolean(opts.full));
    const tensors = (info.tensorInfo ?? []).map((t) => ({
        name: t.name,
        type: lib.GgmlType[t.ggmlType] ?? `type_${t.ggmlType}`,
        type_id: t.ggmlType,
        dims: jsonSafe([...t.dimensions]),
        offset: jsonSafe(t.offset),
    }));
    return {
        version: info.version,
        architecture: metadata['general.architecture'] ?? null,
        tensor_count: jsonSafe(info.tensorCount),
        metadata_size: info.metadataSize,
        metadata,
        tensors,
    };
}

// llama.cpp logs go to stderr. While a model loads, messages are held back and printed only if the
// load fails: node-llama-cpp first "simulates" a full load to estimate memory, which logs a
// misleading "missing tensor" error for vocab-only files even though the real load succeeds.
function makeLogger() {
    const state = { held: null };
    const logger = (level, message) => {
        const line = `[llama.cpp ${level}] ${message.endsWith('\n') ? message : message + '\n'}`;
        if (state.held) state.held.push(line);
        else process.stderr.write(line);
    };
    const load = async (fn) => {
        state.held = [];
        try {
            return await fn();
        } catch (error) {
            for (const line of state.held) process.stderr.write(line);
            throw error;
        } finally {
            state.held = null;
        }
    };
    return { logger, load };
}

async function openLlama(lib) {
    const { logger, load } = makeLogger();
    // maxThreads: 0 makes a context's `threads` the exact thread count rather than a hint.
    const llama = await lib.getLlama({
        gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, progressLogs: false,
        logLevel: lib.LlamaLogLevel.warn, logger, maxThreads: 0,
    });
    return { llama, load };
}

async function loadModel(lib, file, vocabOnly) {
    const { llama, load } = await openLlama(lib);
    const model = await load(() => llama.loadModel({ modelPath: file, vocabOnly, gpuLayers: 0 }));
    return { llama, model };
}

// llama_tokenize(add_special=true) as llama-vocab.cpp does it: node-llama-cpp only exposes
// add_special=false, so the model's BOS/EOS (WPM: CLS/SEP) settings are applied here.
function withSpecial(model, raw) {
    const t = model.tokens;
    const type = String(model.vocabularyType);
    if (type === 'wpm') return [t.bos, ...raw, t.sep];
    if (type !== 'spm' && type !== 'bpe' && type !== 'ugm') return raw;
    const head = t.shouldPrependBosToken ? [t.bos] : [];
    const tail = t.eos !== null && t.shouldAppendEosToken ? [t.eos] : [];
    return [...head, ...raw, ...tail];
}

async function commandTokenize(lib, file, opts) {
    if (!opts.texts) throw new UsageError('tokenize needs --texts TEXTS.json (a JSON array of strings)');
    const texts = JSON.parse(fs.readFileSync(opts.texts, 'utf8'));
    if (!Array.isArray(texts) || texts.some((s) => typeof s !== 'string')) {
        throw new UsageError('--texts must hold a JSON array of strings');
    }
    const special = Boolean(opts.special);
    const { model } = await loadModel(lib, file, true);
    const results = texts.map((text) => {
        const raw = model.tokenize(text, special);
        return { ids: withSpecial(model, raw), raw };
    });
    const t = model.tokens;
    return {
        vocab_type: String(model.vocabularyType),
        parse_special: special,
        bos: t.bos, eos: t.eos,
        add_bos: t.shouldPrependBosToken, add_eos: t.eos !== null && t.shouldAppendEosToken,
        results,
    };
}

// node-llama-cpp has no vocabulary-size getter; the GGUF's token list is the vocabulary.
function vocabularySize(model) {
    const tokens = model.fileInfo.metadata?.tokenizer?.ggml?.tokens;
    if (!Array.isArray(tokens) || tokens.length === 0) {
        throw new Error('the GGUF has no tokenizer.ggml.tokens');
    }
    return tokens.length;
}

function parseIds(text) {
    const ids = String(text ?? '').split(',').filter((s) => s.trim() !== '').map(Number);
    if (ids.length === 0 || ids.some((id) => !Number.isInteger(id) || id < 0)) {
        throw new UsageError('--prompt-ids must be a comma-separated list of token ids');
    }
    return ids;
}

async function makeSequence(lib, file, opts, { contextSize, batchSize }) {
    const threads = intOption(opts, 'threads', 1);
    const kvType = kvTypeOption(opts);
    const flashAttention = Boolean(opts['flash-attn']);
    const { llama, model } = await loadModel(lib, file, false);
    const context = await model.createContext({
        contextSize, batchSize, sequences: 1, threads, flashAttention,
        experimentalKvCacheKeyType: kvType, experimentalKvCacheValueType: kvType,
    });
    const settings = {
        threads, kv_type: kvType, flash_attention: flashAttention, context_size: context.contextSize,
    };
    return { llama, model, sequence: context.getSequence(), settings };
}

// Top k of the next-token distribution, ties broken by lower id like llama.cpp's greedy sampler.
// node-llama-cpp returns softmax probabilities, not logits; ln(p / p_max) is logit - max logit.
function topK(probabilities, k) {
    const entries = [...probabilities.entries()];
    entries.sort((a, b) => (b[1] - a[1]) || (a[0] - b[0]));
    const pMax = entries.length > 0 ? entries[0][1] : 0;
    return entries.slice(0, k).map(([id, p]) => ({
        id, prob: p, logit_minus_max: p > 0 && pMax > 0 ? Math.log(p / pMax) : null,
    }));
}

// Greedy decoding on node-llama-cpp's sequence API: temperature 0 gives a sampler chain holding only
// llama.cpp's greedy sampler (no top-k/top-p, no repetition penalty, no token bias, no grammar).
async function commandGreedy(lib, file, opts) {
    const prompt = parseIds(opts['prompt-ids']);
    const n = intOption(opts, 'n', 32);
    const { model, sequence, settings } = await makeSequence(lib, file, opts, {
        contextSize: prompt.length + n + 1, batchSize: prompt.length,
    });
    const vocabSize = vocabularySize(model);
    if (prompt.some((id) => id >= vocabSize)) {
        throw new UsageError(`--prompt-ids has an id >= the vocabulary size ${vocabSize}`);
    }
    const ids = [];
    const steps = [];
    const generator = sequence.evaluateWithMetadata(prompt, { probabilities: true }, {
        temperature: 0, yieldEogToken: true,
    });
    for await (const { token, probabilities } of generator) {
        ids.push(token);
        steps.push({ id: token, top: topK(probabilities, 5) });
        if (ids.length >= n) break;  // break ends the generator before it evaluates the last token
    }
    return { prompt_ids: prompt, n, ...settings, ids, steps };
}

function median(values) {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// One prompt processing of `tokens` from an empty cache: evaluating them in one batch and sampling
// the next token from the last one's logits (greedy), in ms.
async function promptMs(sequence, tokens) {
    await sequence.clearHistory();
    const start = process.hrtime.bigint();
    const generator = sequence.evaluate(tokens, { temperature: 0, yieldEogToken: true });
    await generator.next();
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    await generator.return();
    return ms;
}

// Prompt processing like llama-bench's pp test: n tokens in one batch, logits of the last one, one
// warm-up round that is reported but not counted. Ids are a fixed pseudo-random walk over the vocab.
async function commandTime(lib, file, opts) {
    const n = intOption(opts, 'n', 128);
    const rounds = intOption(opts, 'rounds', 5);
    const { model, sequence, settings } = await makeSequence(lib, file, opts, {
        contextSize: n + 1, batchSize: n,
    });
    const vocabSize = vocabularySize(model);
    const tokens = Array.from({ length: n }, (_, i) => (i * 7919 + 13) % vocabSize);
    const roundMs = () => promptMs(sequence, tokens);
    const warmupMs = await roundMs();
    const roundsMs = [];
    for (let r = 0; r < rounds; ++r) roundsMs.push(await roundMs());
    return { n, rounds, ...settings, warmup_ms: warmupMs, rounds_ms: roundsMs, median_ms: median(roundsMs) };
}

function writeLine(doc) {
    return new Promise((resolve) => process.stdout.write(JSON.stringify(doc) + '\n', resolve));
}

// Greedy generation of `steps` tokens after `prompt` from an empty cache, timed at each token
// the generator yields: the first interval is the prompt pass (one batch) with the first token's
// sampling, every later one a decode step (the previous token evaluated alone against the KV
// cache, then sampled). Like AttnScope's generate(), whose steps these intervals match.
async function generationMs(sequence, prompt, steps) {
    await sequence.clearHistory();
    const marks = [];
    const tokens = [];
    const start = process.hrtime.bigint();
    const generator = sequence.evaluate(prompt, { temperature: 0, yieldEogToken: true });
    for await (const token of generator) {
        marks.push(Number(process.hrtime.bigint() - start) / 1e6);
        tokens.push(token);
        if (tokens.length >= steps) break;  // ends the generator before it evaluates the last token
    }
    return { prompt_ms: marks[0], step_ms: marks.slice(1).map((m, i) => m - marks[i]), tokens };
}

async function serveGeneration(sequence, settings, request) {
    const steps = request.steps;
    if (!Number.isInteger(steps) || steps < 1) throw new Error('steps must be an integer >= 1');
    if (request.generate.length + steps > settings.max_n) {
        throw new Error(`prompt + steps = ${request.generate.length + steps}, more than --max-n ${settings.max_n}`);
    }
    const out = { prompt_n: request.generate.length, steps, threads: settings.threads, prompt_ms: [], step_ms: [] };
    for (let i = 0; i < (request.warmup ?? 0) + (request.repeats ?? 1); ++i) {
        const g = await generationMs(sequence, request.generate, steps);
        if (i < (request.warmup ?? 0)) continue;
        out.prompt_ms.push(g.prompt_ms);
        out.step_ms.push(g.step_ms);
        out.tokens = g.tokens;
    }
    return out;
}

// One timing request of serve: {"ids": [...], "threads": t, "repeats": r, "warmup": w}, or a
// generation, {"generate": [...prompt ids], "steps": s, "threads": t, "repeats": r, "warmup": w}.
async function serveRequest(sequence, settings, vocabSize, request) {
    const ids = request.generate ?? request.ids;
    const bad = (id) => !Number.isInteger(id) || id < 0 || id >= vocabSize;
    if (!Array.isArray(ids) || ids.length === 0 || ids.some(bad)) {
        throw new Error(`ids must be a non-empty list of token ids below ${vocabSize}`);
    }
    if (ids.length > settings.max_n) throw new Error(`${ids.length} ids, more than --max-n ${settings.max_n}`);
    if (request.threads !== undefined && request.threads !== settings.threads) {
        throw new Error(`this worker runs ${settings.threads} thread(s), not ${request.threads}`);
    }
    if (request.generate !== undefined) return serveGeneration(sequence, settings, request);
    const times = [];
    for (let i = 0; i < (request.warmup ?? 0) + (request.repeats ?? 1); ++i) {
        const ms = await promptMs(sequence, ids);
        if (i >= (request.warmup ?? 0)) times.push(ms);
    }
    return { n: ids.length, threads: settings.threads, times_ms: times };
}

// A timing worker like tests/bench/forward_bench --serve (gguf_bench.py interleaves the two): the model
// and one context of --max-n tokens stay loaded; after a {"ready": true, ...} line, one JSON reply line
// per request line ({"error": ...} for a bad one); {"quit": true} or the end of stdin ends it.
async function commandServe(lib, file, opts, version) {
    const maxN = intOption(opts, 'max-n', 512);
    const start = process.hrtime.bigint();
    const { model, sequence, settings } = await makeSequence(lib, file, opts, {
        contextSize: maxN + 1, batchSize: maxN,
    });
    const vocabSize = vocabularySize(model);
    settings.max_n = maxN;
    await writeLine({
        ready: true, program: 'llama.cpp', node_llama_cpp: version, model: path.resolve(file),
        load_ms: Number(process.hrtime.bigint() - start) / 1e6, vocab_size: vocabSize, ...settings,
    });
    let served = 0;
    for await (const line of readline.createInterface({ input: process.stdin })) {
        if (line.trim() === '') continue;
        let reply;
        try {
            const request = JSON.parse(line);
            if (request.quit) break;
            reply = await serveRequest(sequence, settings, vocabSize, request);
            ++served;
        } catch (error) {
            reply = { error: String(error?.message ?? error) };
        }
        await writeLine(reply);
    }
    return { served };
}

async function main() {
    const { command, model, opts } = parseArgs(process.argv.slice(2));
    if (!fs.existsSync(model)) throw new UsageError(`no such file: ${model}`);
    const { lib, version } = await importNodeLlamaCpp(opts);
    const run = {
        meta: commandMeta, tokenize: commandTokenize, greedy: commandGreedy, time: commandTime, serve: commandServe,
    };
    const result = await run[command](lib, model, opts, version);
    const doc = { command, model: path.resolve(model), node_llama_cpp: version, ...result };
    await new Promise((resolve) => process.stdout.write(JSON.stringify(doc) + '\n', resolve));
}

try {
    await main();
    process.exit(0);  // node-llama-cpp keeps native handles alive; exit once the document is out
} catch (error) {
    const known = error instanceof UsageError || error instanceof PeerMissing;
    console.error(`llama_peer: ${known ? error.message : 'error: ' + (error?.stack ?? error)}`);
    process.exit(error instanceof UsageError ? 2 : error instanceof PeerMissing ? 77 : 1);
}
