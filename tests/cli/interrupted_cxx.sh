#!/usr/bin/env bash
# A host compiler that is stopped by Ctrl-C while it builds a shared library: it sends itself
# SIGINT, as the terminal does to the whole foreground process group (mdhc, which ignores it
# while std::system runs the compiler, learns of it only from the compiler's death). Other
# invocations (the compiler's version and macro queries) run $CXX, else c++, unchanged.
for a in "$@"; do
  if [ "$a" = "-shared" ]; then
    kill -INT $$
    sleep 5 # not reached: SIGINT's default action ends this shell
    exit 1
  fi
done
exec "${CXX:-c++}" "$@"
