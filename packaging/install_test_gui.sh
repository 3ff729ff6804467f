#!/bin/sh
# Runs inside the install test's Debian root, under xvfb-run (packaging/install_test.sh): starts
# the installed attnscope with no arguments, waits until its window is titled for the default
# model, lets the first forward pass and the grid draw, then screenshots the whole screen.
set -eu
attnscope >/tmp/attnscope.log 2>&1 &
app=$!

tries=0
until xwininfo -root -tree | grep -q 'default_model"'; do
    if ! kill -0 "$app" 2>/dev/null; then
        echo "attnscope exited before showing the default model:"
        cat /tmp/attnscope.log
        exit 1
    fi
    tries=$((tries + 1))
    if [ "$tries" -gt 120 ]; then
        echo "no window for the default model after 60 s:"
        xwininfo -root -tree
        exit 1
    fi
    sleep 0.5
done
# Window id, title and WM_CLASS (what the desktop entry's StartupWMClass must match).
xwininfo -root -tree | grep 'default_model"'
# The title changes when the model is loaded; the sentence's heads are computed right after.
sleep 5
import -window root /tmp/screenshot.png
echo "screenshot: $(identify -format '%wx%h, %k colours' /tmp/screenshot.png)"
kill "$app"
{ wait "$app"; } 2>/dev/null || true  # no "Terminated" in the log
