#!/usr/bin/env bash
# Writes a help2man include file with one section per attnscope-cli subcommand, each holding
# that subcommand's own --help, so the man page lists the commands the program really has.
# The subcommands are read from the top-level --help: the names that start a line of CLI11's
# "Subcommands:" block (a description too long for its column continues on an indented line).
# Usage: cli_commands.sh ATTNSCOPE_CLI OUT.h2m
set -euo pipefail
cli=$1 out=$2

commands=$("$cli" --help |
    awk '/^Subcommands:/ { on = 1; next } on && NF == 0 { exit } on && /^  [^ ]/ { print $1 }')
if [[ -z $commands ]]; then
    echo "cli_commands.sh: no 'Subcommands:' block in the output of '$cli --help'" >&2
    exit 1
fi

{
    echo "[COMMANDS]"
    for command in $commands; do
        echo ".SS $command"
        echo ".nf"
        # Verbatim text for roff: backslashes become \e, and a leading . or ' must not be
        # read as a request.
        # argv[0] is what CLI11 prints after "Usage:"; not the build folder's path.
        (exec -a attnscope-cli "$cli" "$command" --help) |
            sed -e 's/\\/\\e/g' -e 's/^\([.'"'"']\)/\\\&\1/'
        echo ".fi"
    done
} >"$out.tmp"
mv "$out.tmp" "$out"
