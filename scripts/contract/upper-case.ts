// The upper case PostgreSQL gives a text in a UTF-8 database whose LC_CTYPE is glibc C.UTF-8:
// UPPER() maps each code point on its own with towupper(), glibc 2.36 on Debian bookworm. It is a
// simple mapping, one code point to one (ß stays ß, not SS), and its Unicode version is glibc's,
// not the one of the JavaScript engine running this, so the table is written out here rather than
// taken from toUpperCase(). test/process/search.test.ts compares it with the system's towupper().

// Runs of code points mapped by the same offset, each `start:count:stride:offset` in base 36.
const RUNS = [
  '2p:q:1:-w 51:1:1:kn 68:n:1:-w 6w:7:1:-w 73:1:1:3d 75:o:2:-1 8h:1:1:-6g 8j:3:2:-1 8q:8:2:-1 97:n:2:-1 ',
  'ai:3:2:-1 an:1:1:-8c ao:1:1:5f ar:2:2:-1 aw:1:1:-1 b0:1:1:-1 b6:1:1:-1 b9:1:1:2p bd:1:1:-1 be:1:1:4j ',
  'bi:1:1:3m bl:3:2:-1 bs:1:1:-1 bx:1:1:-1 c0:1:1:-1 c4:2:2:-1 c9:1:1:-1 cd:1:1:-1 cf:1:1:1k cl:1:1:-1 ',
  'cm:1:1:-2 co:1:1:-1 cp:1:1:-2 cr:1:1:-1 cs:1:1:-2 cu:8:2:-1 d9:1:1:-27 db:9:2:-1 du:1:1:-1 dv:1:1:-2 ',
  'dx:1:1:-1 e1:k:2:-1 f7:9:2:-1 fw:1:1:-1 fz:2:1:8cf g2:1:1:-1 g7:5:2:-1 gg:1:1:8bj gh:1:1:8bg ',
  'gi:1:1:8bi gj:1:1:-5u gk:1:1:-5q gm:2:1:-5p gp:1:1:-5m gr:1:1:-5n gs:1:1:wnj gw:1:1:-5p gx:1:1:wnf ',
  'gz:1:1:-5r h1:1:1:wmg h2:1:1:wn8 h4:1:1:-5t h5:1:1:-5v h6:1:1:wn8 h7:1:1:8af h8:1:1:wn5 hb:1:1:-5v ',
  'hd:1:1:8al he:1:1:-5x hh:1:1:-5y hp:1:1:89z hs:1:1:-62 hu:1:1:wn7 hv:1:1:-62 hz:1:1:wmi i0:1:1:-62 ',
  'i1:1:1:-1x i2:2:1:-61 i4:1:1:-1z ia:1:1:-63 il:1:1:wlx im:1:1:wlu n9:1:1:2c oh:2:2:-1 on:1:1:-1 ',
  'or:3:1:3m q4:1:1:-12 q5:3:1:-11 q9:h:1:-w qq:1:1:-v qr:9:1:-w r0:1:1:-1s r1:2:1:-1r r4:1:1:-1q ',
  'r5:1:1:-1l r9:1:1:-1b ra:1:1:-1i rb:1:1:-8 rd:c:2:-1 s0:1:1:-2e s1:1:1:-28 s2:1:1:7 s3:1:1:-38 ',
  's5:1:1:-2o s8:1:1:-1 sb:1:1:-1 ts:w:1:-w uo:g:1:-28 v5:h:2:-1 wb:r:2:-1 xu:7:2:-1 y7:1:1:-f ',
  'y9:1c:2:-1 129:12:1:-1c 3bk:17:1:2bk 3ct:3:1:2bk 3y0:6:1:-8 5mo:1:1:-4tq 5mp:1:1:-4tp 5mq:1:1:-4tg ',
  '5mr:2:1:-4te 5mt:1:1:-4tf 5mu:1:1:-4t8 5mv:1:1:-4rp 5mw:1:1:r7m 5tl:1:1:r9g 5tp:1:1:2xy 5u6:1:1:raw ',
  '5xd:23:2:-1 61n:1:1:-1n 61t:1c:2:-1 64g:8:1:8 64w:6:1:8 65c:8:1:8 65s:8:1:8 668:6:1:8 66p:4:2:8 ',
  '674:8:1:8 67k:2:1:22 67m:4:1:2e 67q:2:1:2s 67s:2:1:3k 67u:2:1:34 67w:2:1:3i 680:8:1:8 68g:8:1:8 ',
  '68w:8:1:8 69c:2:1:8 69f:1:1:9 69q:1:1:-5k5 69v:1:1:9 6a8:2:1:8 6ao:2:1:8 6at:1:1:7 6b7:1:1:9 ',
  '6ku:1:1:-s 6ls:g:1:-g 6mc:1:1:-1 79s:q:1:-q 8q8:1c:1:-1c 8rl:1:1:-1 8rp:1:1:-8bv 8rq:1:1:-8bs ',
  '8rs:3:2:-1 8s3:1:1:-1 8s6:1:1:-1 8sh:1e:2:-1 8vg:2:2:-1 8vn:1:1:-1 8w0:12:1:-5ls 8x3:1:1:-5ls ',
  '8x9:1:1:-5ls wu9:n:2:-1 ww1:e:2:-1 x0j:7:2:-1 x0z:v:2:-1 x2y:2:2:-1 x33:5:2:-1 x3g:1:1:-1 x3l:2:2:-1 ',
  'x3o:1:1:1c x3r:a:2:-1 x4l:8:2:-1 x54:2:2:-1 x5d:1:1:-1 x5j:2:2:-1 x6e:1:1:-1 xub:1:1:-ps ',
  'xv4:28:1:-tzk 1ef5:q:1:-w 1fe0:14:1:-14 1fiw:10:1:-14 1fo7:b:1:-13 1foj:f:1:-13 1foz:7:1:-13 ',
  '1fp7:2:1:-13 1h34:1f:1:-1s 1jgg:w:1:-w 20dc:w:1:-w 2oma:y:1:-y ',
].join('');

let table: Map<number, number> | undefined;

/** Code point → its upper case, for the code points towupper() changes. */
function upperTable(): Map<number, number> {
  if (table !== undefined) return table;
  table = new Map();
  for (const run of RUNS.trim().split(' ')) {
    const [start, count, stride, offset] = run.split(':').map((part) => Number.parseInt(part, 36)) as [
      number,
      number,
      number,
      number,
    ];
    for (let i = 0; i < count; i++) table.set(start + i * stride, start + i * stride + offset);
  }
  return table;
}

/** towupper() of one code point under C.UTF-8. */
export function upperCodePoint(codePoint: number): number {
  return upperTable().get(codePoint) ?? codePoint;
}

/** PostgreSQL's UPPER() of a text: each code point through upperCodePoint(). */
export function pgUpper(text: string): string {
  // Most texts are ASCII without lower-case letters beyond a-z: the native upper case is the same there.
  if (!/\P{ASCII}/u.test(text)) return text.toUpperCase();
  let out = '';
  for (const char of text) out += String.fromCodePoint(upperCodePoint(char.codePointAt(0) as number));
  return out;
}
