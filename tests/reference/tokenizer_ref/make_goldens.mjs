// Fills in the "expect" block of the tokenizer golden cases (tests/data/tokenize/<case>/case.json)
// from Hugging Face's Rust `tokenizers` crate (npm package `tokenizers`). Run by hand when a case
// is added; the results are committed and were checked by hand. Not part of the test run.
//
// Usage: node make_goldens.mjs DATA_DIR SHARED_TOKENIZERS_DIR
// A case is filled when it has "text" and "reference" (a tokenizer.json: a path relative to
// DATA_DIR, or "shared:<model>/tokenizer.json").
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const rust = createRequire(import.meta.url)('tokenizers');

function resolve(ref, dataDir, sharedDir) {
    return ref.startsWith('shared:') ? path.join(sharedDir, ref.slice(7)) : path.join(dataDir, ref);
}

async function main() {
    const [dataDir, sharedDir] = process.argv.slice(2);
    for (const name of fs.readdirSync(dataDir).sort()) {
        const file = path.join(dataDir, name, 'case.json');
        if (!fs.existsSync(file)) continue;
        const c = JSON.parse(fs.readFileSync(file, 'utf8'));
        if (c.text === undefined || c.reference === undefined) continue;
        const tok = rust.Tokenizer.fromFile(resolve(c.reference, dataDir, sharedDir));
        const enc = await tok.encode(c.text, null, { addSpecialTokens: c.add_special_tokens ?? true });
        const ids = enc.getIds();
        c.expect = { tokens: ids.map((id) => tok.idToToken(id)), ids, chars: enc.getOffsets() };
        fs.writeFileSync(file, JSON.stringify(c, null, 1) + '\n');
        console.log(name, JSON.stringify(c.expect.tokens));
    }
}

main().catch((err) => { console.error(err); process.exit(1); });
