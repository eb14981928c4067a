// The A/B result (ab/run.mjs) as Markdown, readable on a terminal too.

const x = (v) => `${v.toFixed(3)}×`;
const range = (s) => `${x(s.lo)} – ${x(s.hi)}`;
const iqr = (s) => `${x(s.q1)} – ${x(s.q3)}`;

function gateCell(r, limit) {
  if (!r.gated) return '';
  if (r.missing === 'head') return '**FAIL** (HEAD lacks the call)';
  if (r.missing) return 'skipped: not in the baseline';
  const word = r.verdict === 'fail' ? '**FAIL**' : 'pass';
  if (!r.first) return `${word} (interval ≤ ${x(limit)})`;
  const third = r.confirmed ? `; a third time ${x(r.confirmed.median)}` : '';
  return `${word} after re-measuring (first ${x(r.first.median)}, ${range(r.first)}; again ${x(r.remeasured.median)}${third})`;
}

export function formatAb(res) {
  const limit = res.gate;
  const out = [];
  const ref = `${res.ref.sha.slice(0, 7)}`;
  out.push(`### Same-run A/B: HEAD / ${ref}`, '');
  out.push(`HEAD: ${res.head}`, '');
  out.push(`ref: ${ref} (${res.ref.subject})`, '');
  out.push(`Machine: ${res.machine}`, '');
  out.push(
    `Both builds in one process, interleaved: a round is 9 pairs of ~1 ms samples (order ` +
      `alternating) and its ratio time(HEAD) / time(${ref}) is of each side's fastest sample; ` +
      `${res.rounds} rounds in each of ${res.processes} processes (loading order alternating), pooled; ` +
      `below 1 HEAD is faster. Shown: the median ratio, a 95% confidence interval of the median (order ` +
      `statistics), and the interquartile range of the per-round ratios (the spread).` +
      (limit
        ? ` Gate: a row fails when its median is over ${x(limit)}; a row whose interval reaches over it is ` +
          `measured again (as many processes, twice the rounds) and judged on all its rounds; one over the ` +
          `limit then is measured a third time after a pause, and fails only if it is over the limit again.`
        : ''),
    '',
  );
  const gated = res.rows.some((r) => r.gated);
  out.push(`| call | shape | HEAD / ${ref} | 95% interval | IQR of ratios |${gated ? ' gate |' : ''}`);
  out.push(`|---|---|--:|--:|--:|${gated ? '---|' : ''}`);
  for (const r of res.rows) {
    const shape = `${r.rows} × ${r.d}`;
    const g = gated ? ` ${gateCell(r, limit)} |` : '';
    if (r.missing) {
      const who = r.missing === 'head' ? 'HEAD' : ref;
      out.push(`| ${r.label} | ${shape} | n/a (${who}: ${r.why}) | | |${g}`);
      continue;
    }
    out.push(`| ${r.label} | ${shape} | ${x(r.median)} | ${range(r)} | ${iqr(r)} |${g}`);
  }
  out.push('');
  if (res.limit) {
    const l = res.limit;
    out.push(
      `HEAD's resident \`forwardTensor\` / the float32-statistics limit (\`limit:f32stats\`), ` +
        `[${l.rows} × ${l.d}], same run: ${x(l.median)} (95% interval ${range(l)}, IQR ${iqr(l)}).`,
      '',
    );
  }
  return out.join('\n');
}
