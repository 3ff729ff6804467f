// ONNX Runtime peer of the forward-pass benchmark: runs the model torch_peer.py exported (every
// layer's attention probabilities are graph outputs) with npm onnxruntime-node, CPU only.
//
//   node ort_peer.mjs MODEL.onnx --threads T [--modules DIR]
//
// Serves one JSON request per stdin line, {"ids": [...], "threads": t, "repeats": k,
// "warmup": w}, with one JSON reply per line, like forward_bench and torch_peer.py. The session
// is made for one thread count (intra-op threads are fixed when a session is created), so the
// driver starts one process per thread count. --modules is the folder holding node_modules
// (the driver installs it in the build tree, not beside this file).
import { createRequire } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

function parseArgs(argv) {
    const args = { model: null, threads: 1, modules: path.dirname(fileURLToPath(import.meta.url)) };
    for (let i = 0; i < argv.length; ++i) {
        if (argv[i] === '--threads') args.threads = Number(argv[++i]);
        else if (argv[i] === '--modules') args.modules = argv[++i];
        else args.model = argv[i];
    }
    if (!args.model) {
        console.error('usage: node ort_peer.mjs MODEL.onnx --threads T [--modules DIR]');
        process.exit(2);
    }
    return args;
}

function currentRssKb() {
    return Math.round(process.memoryUsage().rss / 1024);
}

// Mean attended key position, the same fingerprint as forward_bench.cpp and torch_peer.py.
function fingerprint(tensor) {
    const n = tensor.dims[tensor.dims.length - 1];
    const data = tensor.data;
    let sum = 0;
    for (let i = 0; i < data.length; ++i) sum += data[i] * (i % n);
    return sum / (data.length / n);
}

async function main() {
    const args = parseArgs(process.argv.slice(2));
    const require = createRequire(path.resolve(args.modules, 'package.json'));
    const ort = require('onnxruntime-node');
    const start = performance.now();
    // The settings benchmarking.md names: intra-op = t, one inter-op thread, sequential
    // execution, every graph optimisation.
    const session = await ort.InferenceSession.create(args.model, {
        intraOpNumThreads: args.threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
    });
    const probsNames = session.outputNames.filter((name) => name.startsWith('probs_'));
    console.log(JSON.stringify({
        ready: true, program: 'onnxruntime', version: ort.env.versions?.common ?? null,
        load_ms: performance.now() - start, rss_after_load_kb: currentRssKb(),
        maxrss_kb: process.resourceUsage().maxRSS, outputs: session.outputNames.length,
    }));

    const lines = readline.createInterface({ input: process.stdin, terminal: false });
    for await (const line of lines) {
        if (!line.trim()) continue;
        let reply;
        try {
            const request = JSON.parse(line);
            if (request.quit) break;
            if (request.threads !== args.threads) {
                throw new Error(`session made for ${args.threads} threads, asked for ${request.threads}`);
            }
            const ids = BigInt64Array.from(request.ids, (id) => BigInt(id));
            const feeds = { input_ids: new ort.Tensor('int64', ids, [ids.length]) };
            const times = [];
            let out = null;
            const warmup = request.warmup ?? 0;
            const repeats = request.repeats ?? 1;
            for (let i = 0; i < warmup + repeats; ++i) {
                out = null;
                const t0 = performance.now();
                out = await session.run(feeds);
                const ms = performance.now() - t0;
                if (i >= warmup) times.push(ms);
            }
            reply = {
                n: ids.length, threads: args.threads, times_ms: times,
                maxrss_kb: process.resourceUsage().maxRSS, rss_kb: currentRssKb(),
                check: [fingerprint(out[probsNames[0]]), fingerprint(out[probsNames[probsNames.length - 1]])],
            };
        } catch (e) {
            reply = { error: String(e) };
        }
        console.log(JSON.stringify(reply));
    }
    await session.release();
    // The readline interface keeps stdin referenced after `quit`; do not wait for EOF.
    process.exit(0);
}

main().catch((e) => {
    console.error(`ort_peer: ${e.stack ?? e}`);
    process.exit(1);
});
