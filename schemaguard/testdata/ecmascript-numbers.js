// Regenerate with: node testdata/ecmascript-numbers.js > testdata/ecmascript-numbers.txt
// Writes "<IEEE 754 bits in hex> <Number.prototype.toString>" for edge and random doubles.
const crypto = require('crypto');
const buf = Buffer.alloc(8);
const out = [];
function add(f) { if (!isFinite(f)) return; buf.writeDoubleBE(f); out.push(buf.toString('hex') + ' ' + String(f)); }
for (let e = -30; e <= 30; e++) for (const m of [1, 1.5, 9.999999999999998, 1.0000000000000002]) { add(m * 10 ** e); add(-m * 10 ** e); }
for (let i = 0; i < 64; i++) { add(2 ** (i - 1074)); add(2 ** (1023 - i)); add(Number.MAX_SAFE_INTEGER + i); }
let n = 0;
while (n < 3000) {
  const b = crypto.randomBytes(8);
  const f = b.readDoubleBE(0);
  if (!isFinite(f)) continue;
  add(f); n++;
}
for (let i = 0; i < 1000; i++) {
  const b = crypto.randomBytes(8);
  const e = (b[0] % 60) - 30;
  add((b.readUInt32BE(4) / 2 ** 32) * 10 ** e);
}
console.log(out.join('\n'));
