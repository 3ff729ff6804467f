// Tokenizes texts for tests/reference/coref_reference.py with Hugging Face's own `tokenizers`
// (the Rust crate through its Node bindings), independent of AttnScope's C++ tokenizers.
// usage: node coref_tokenize.mjs PATH/tokenizer.json
// Reads one JSON string per line on stdin; writes one line per text:
//   {"ids": [...], "offsets": [[begin, end], ...] (code points), "special": [0|1, ...]}
// Special tokens included, no truncation, no padding.
import readline from 'node:readline';
import { createRequire } from 'node:module';

const { Tokenizer } = createRequire(import.meta.url)('tokenizers');
const tokenizer = Tokenizer.fromFile(process.argv[2]);
tokenizer.disableTruncation();
tokenizer.disablePadding();
const lines = readline.createInterface({ input: process.stdin, terminal: false });
for await (const line of lines) {
    const encoding = await tokenizer.encode(JSON.parse(line));
    process.stdout.write(JSON.stringify({
        ids: encoding.getIds(), offsets: encoding.getOffsets(),
        special: encoding.getSpecialTokensMask(),
    }) + '\n');
}
