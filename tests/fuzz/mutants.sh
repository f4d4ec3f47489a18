#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# mutants.sh: shows that the fuzz target can fail. Each mutant is a copy of
# stages/ with one small, plausible bug planted (sed); the fuzz target is
# built against it and fuzzed from the vector seeds alone (no regression
# inputs, no corpus) for SECONDS. Every mutant must be caught: by the
# independent narrowing check, the reference model, the one-buffer versus
# segments comparison, or ASan. Not part of make test (`make fuzz-mutants`).
#
#   mutants.sh BUILD SEEDS [SECONDS]
set -u
build=${1:?usage: mutants.sh BUILD SEEDS [SECONDS]}
seeds=${2:?usage: mutants.sh BUILD SEEDS [SECONDS]}
secs=${3:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$build/fuzz/mutants
san=(-fsanitize=address,undefined -fno-sanitize-recover=all)

# name|file|sed expression
mutants=(
	"udp-csum-zero-not-ffff|xio_stage.c|s/xio_put_be16(udp + 6, csum == 0 ? 0xffff : csum);/xio_put_be16(udp + 6, csum);/"
	"mf-flag-ignored|xio_stage.c|s/if (xio_be16(ip + 6) \& 0x3fff)/if (xio_be16(ip + 6) \& 0x1fff)/"
	"hdr-len-equal-body-refused|xio_stage.c|s/hdr_len % 4 || hdr_len > body)/hdr_len % 4 || hdr_len >= body)/"
	"ipv6-length-kept|xio_stage.c|s/(uint16_t)(p->ip_len - 40 - shrink)/(uint16_t)(p->ip_len - 40)/"
	"bad-crc-not-invalid|xio_stage.c|/case XIO_R_BAD_CRC:/d"
	"odd-segment-csum-unswapped|xio_frame.c|s/sum += (done \& 1) ? __builtin_bswap16(part) : part;/sum += part;/"
	"narrow-run-overflows-segment|xio_frame.c|s/if (k > davail \/ 2)/if (k > davail)/"
	"avx2-block-halves-swapped|xio_narrow_avx2.c|s/ST(dst + 2 \* i + 32, pack16(c, d));/ST(dst + 2 * i + 32, pack16(d, c));/"
	"avx2-block-reads-past-end|xio_narrow_avx2.c|s/for (; i + 32 <= n; i += 32) {/for (; i + 32 < n + 8; i += 32) {/"
)

# isa_flags FILE: the flags stages/stages.mk gives a kernel file.
isa_flags() {
	case $1 in
	*_sse41.c) echo -msse4.1 ;;
	*_avx2.c) echo -mavx2 ;;
	*_avx512.c) echo -mavx512f -mavx512bw -mavx512vl ;;
	esac
}

# one NAME FILE EXPR: builds and fuzzes one mutant; prints its verdict.
one() {
	local name=$1 file=$2 expr=$3 d=$work/$1 objs=() src
	rm -rf "$d" && mkdir -p "$d/corpus" "$d/artifacts"
	cp -r "$root/stages" "$d/stages"
	sed -i "$expr" "$d/stages/$file"
	if cmp -s "$root/stages/$file" "$d/stages/$file"; then
		echo "mutant $name: NOT PLANTED (the code it edits changed)"
		return 1
	fi
	for src in "$d"/stages/*.c; do
		case $src in *_neon.c) continue ;; esac
		# shellcheck disable=SC2046
		clang -O1 -g -std=gnu11 -D_GNU_SOURCE -I"$d/stages" -I"$root/pipeline" -march=x86-64-v2 \
			$(isa_flags "$src") "${san[@]}" -fsanitize=fuzzer-no-link -c "$src" \
			-o "${src%.c}.o" || return 1
		objs+=("${src%.c}.o")
	done
	clang -O1 -g -std=gnu11 -D_GNU_SOURCE -I"$d/stages" -I"$root/pipeline" -I"$root/tests/hostile" \
		"${san[@]}" -fsanitize=fuzzer "$root/tests/fuzz/fuzz_stage.c" "$root/tests/fuzz/fuzz_check.c" \
		"$root/tests/hostile/xio_ref.c" "${objs[@]}" -o "$d/fuzz" -lisal || return 1
	if "$d/fuzz" -max_len=9100 -max_total_time="$secs" -artifact_prefix="$d/artifacts/" \
		"$d/corpus" "$seeds" >"$d/log" 2>&1; then
		echo "mutant $name: NOT CAUGHT in $secs s"
		return 1
	fi
	echo "mutant $name: caught: $(grep -m1 -E 'fuzz_stage:|ERROR: AddressSanitizer|runtime error' "$d/log")"
}

mkdir -p "$work"
fail=0
for m in "${mutants[@]}"; do
	IFS='|' read -r name file expr <<<"$m"
	one "$name" "$file" "$expr" || fail=$((fail + 1))
done
echo "mutants: ${#mutants[@]} planted, $fail not caught"
[ "$fail" -eq 0 ]
