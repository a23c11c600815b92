#!/usr/bin/env bash
# Makes the spoken-digits data set: the words "zero" ... "nine" spoken by espeak-ng (Debian's
# package espeak-ng) in 5 English voices, at 3 speeds and 3 pitches: 450 utterances, 16-bit mono
# WAV files at 22050 Hz in wav/, and utterances.txt, one "file digit word voice speed pitch" a
# line. espeak-ng synthesises deterministically: the same version makes the same files
# (utterances.txt records it). `bash .ci/setup` runs this script; the files are not committed.
#   bash datasets/spoken-digits/make_spoken_digits.sh
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v espeak-ng >/dev/null; then
  echo "make_spoken_digits.sh: espeak-ng is not installed: sudo apt-get install espeak-ng (bash .ci/setup does)" >&2
  exit 1
fi
words=(zero one two three four five six seven eight nine)
voices=(en-us en-gb en-gb-scotland en-gb-x-rp en-029)
speeds=(120 150 180)
pitches=(35 50 65)
rm -rf wav.new utterances.txt.new
mkdir wav.new
{
  echo "# espeak-ng $(espeak-ng --version | sed -n 's/.*text-to-speech: \([^ ]*\).*/\1/p'): file digit word voice speed pitch"
  for digit in "${!words[@]}"; do
    for voice in "${voices[@]}"; do
      for speed in "${speeds[@]}"; do
        for pitch in "${pitches[@]}"; do
          file="${digit}_${voice}_${speed}_${pitch}.wav"
          espeak-ng -v "$voice" -s "$speed" -p "$pitch" -w "wav.new/$file" "${words[$digit]}"
          echo "wav/$file $digit ${words[$digit]} $voice $speed $pitch"
        done
      done
    done
  done
} > utterances.txt.new
rm -rf wav
mv wav.new wav
mv utterances.txt.new utterances.txt
echo "spoken digits: $(($(wc -l < utterances.txt) - 1)) utterances in $(pwd)/wav"
