// Tokenizes texts for tests/reference/coref_reference.py with Hugging Face's own `tokenizers`
// (the Rust crate through its Node bindings), independent of AttnScope's C++ tokenizers.
// usage: node coref_tokenize.mjs PATH/tokenizer.json
// Reads one JSON string per line on stdin; writes one line per text:
//   {"ids": [...], "offsets": [[begin, end], ...] (code points), "special": [0|1, ...]}
// Special tokens included, no truncation, no padding. "special" also marks a special added token
// the text itself contains ("[MASK]" in a sentence): Hugging Face's mask marks only the
// template's tokens, but such a token covers a word that then has no token of its own (issue 16
// D12), as AttnScope flags it.
import { readFileSync } from 'node:fs';
import readline from 'node:readline';
import { createRequire } from 'node:module';

const { Tokenizer } = createRequire(import.meta.url)('tokenizers');
const tokenizer = Tokenizer.fromFile(process.argv[2]);
const specialIds = new Set((JSON.parse(readFileSync(process.argv[2], 'utf8')).added_tokens ?? [])
    .filter((t) => t.special).map((t) => t.id));
tokenizer.disableTruncation();
tokenizer.disablePadding();
const lines = readline.createInterface({ input: process.stdin, terminal: false });
for await (const line of lines) {
    const encoding = await tokenizer.encode(JSON.parse(line));
    process.stdout.write(JSON.stringify({
        ids: encoding.getIds(), offsets: encoding.getOffsets(),
        special: encoding.getSpecialTokensMask().map(
            (flag, k) => (flag || specialIds.has(encoding.getIds()[k]) ? 1 : 0)),
    }) + '\n');
}
