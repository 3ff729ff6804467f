"""Train the WordPiece vocabulary on train.txt and write vocab.txt, tokenizer.json and
tokenizer_config.json into OUT_DIR. Usage: build_tokenizer.py DATA_DIR OUT_DIR VOCAB MAX_POS"""

import collections
import sys

import wordpiece


def main(data_dir, out_dir, vocab_size, max_positions):
    counts = collections.Counter()
    with open(f"{data_dir}/train.txt", encoding="utf-8") as f:
        for line in f:
            counts.update(wordpiece.pre_tokenize(wordpiece.normalize(line)))
    vocab = wordpiece.train(counts, vocab_size)
    wordpiece.write_files(vocab, out_dir, max_positions)
    print(f"{len(counts)} distinct words, vocabulary of {len(vocab)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
