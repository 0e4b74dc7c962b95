// Times one model with ONNX Runtime for Node.js the way `kiln bench` times it with Kiln, and
// optionally writes its outputs for comparison.
//
//   node bench/ort/ort_bench.js MODEL --inputs DIR [--threads N] [--warmup W] [--iters K]
//                               [--output-dir DIR] [--optimization 0|1|2|3] [--profile PREFIX]
//
// DIR holds input_<i>.npy in graph input order (float32, int64 or int32, C order). Prints one JSON
// object with the keys of `kiln bench --json`: load_ms (session creation), first_run_ms, min_ms,
// median_ms, p90_ms, mean_ms, iters, threads, peak_rss_mb (this process's peak resident set, which
// includes Node.js itself) and base_rss_mb (the resident set before ONNX Runtime was loaded).
// With --output-dir, output i is written to DIR/output_<i>.npy. With --profile, ONNX Runtime's
// profiler records the timed runs (its JSON file's name starts with PREFIX; printed on stderr),
// for bench/op_profile.py.
'use strict';
const fs = require('fs');
const path = require('path');

// Resident set sizes from /proc/self/status (VmHWM starts afresh at exec; getrusage's maxRSS
// would also count the image the parent had before exec, e.g. the Python driver's).
function statusMb(key) {
  const line = fs.readFileSync('/proc/self/status', 'latin1').split('\n').find((l) => l.startsWith(key));
  return line ? parseInt(line.slice(key.length), 10) / 1024 : NaN;
}

const baseRssMb = statusMb('VmRSS:');

const DTYPES = {
  '<f4': ['float32', Float32Array],
  '<i8': ['int64', BigInt64Array],
  '<i4': ['int32', Int32Array],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order`);
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)[1];
  const dims = shapeText.split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const kind = DTYPES[descr];
  if (!kind) throw new Error(`${file}: dtype ${descr} not supported`);
  const bytes = buf.subarray(start + headerLen);
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return [kind[0], new kind[1](copy.buffer), dims];
}

function writeNpy(file, tensor) {
  const descr = {float32: '<f4', int64: '<i8', int32: '<i4', bool: '|b1'}[tensor.type];
  if (!descr) throw new Error(`output type ${tensor.type} not supported`);
  const dims = tensor.dims.length === 1 ? `${tensor.dims[0]},` : tensor.dims.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  header += ' '.repeat(63 - ((header.length + 10) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), data]));
}

function parseArgs(argv) {
  const args = {threads: 1, warmup: 5, iters: 50, inputs: null, outputDir: null, model: null,
                optimization: 'all'};
  const levels = ['disabled', 'basic', 'extended', 'all'];  // as kiln's --optimization 0-3
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--threads') args.threads = Number(next());
    else if (a === '--warmup') args.warmup = Number(next());
    else if (a === '--iters') args.iters = Number(next());
    else if (a === '--inputs') args.inputs = next();
    else if (a === '--output-dir') args.outputDir = next();
    else if (a === '--profile') args.profile = next();
    else if (a === '--optimization') {
      const level = levels[Number(next())];
      if (level === undefined) throw new Error('--optimization takes 0 to 3');
      args.optimization = level;
    }
    else if (!args.model && !a.startsWith('--')) args.model = a;
    else throw new Error(`unknown argument '${a}'`);
  }
  if (!args.model || !args.inputs) throw new Error('usage: ort_bench.js MODEL --inputs DIR ...');
  return args;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ort = require('onnxruntime-node');
  const options = {
    intraOpNumThreads: args.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: args.optimization,
  };
  if (args.profile) {
    options.enableProfiling = true;
    options.profileFilePrefix = args.profile;
  }
  const t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(args.model, options);
  const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;

  const feeds = {};
  session.inputNames.forEach((name, i) => {
    const [type, data, dims] = readNpy(path.join(args.inputs, `input_${i}.npy`));
    feeds[name] = new ort.Tensor(type, data, dims);
  });
  const time = async () => {
    const start = process.hrtime.bigint();
    const out = await session.run(feeds);
    return [Number(process.hrtime.bigint() - start) / 1e6, out];
  };
  const [firstMs, outputs] = await time();
  for (let i = 0; i < args.warmup; ++i) await time();
  const times = [];
  for (let i = 0; i < args.iters; ++i) times.push((await time())[0]);
  times.sort((a, b) => a - b);
  if (args.profile) console.error(`ort_bench: profile ${session.endProfiling()}`);
  if (args.outputDir) {
    fs.mkdirSync(args.outputDir, {recursive: true});
    session.outputNames.forEach((name, i) => {
      writeNpy(path.join(args.outputDir, `output_${i}.npy`), outputs[name]);
    });
  }
  const round = (x) => Math.round(x * 1000) / 1000;
  console.log(JSON.stringify({
    load_ms: round(loadMs),
    first_run_ms: round(firstMs),
    min_ms: round(times[0]),
    median_ms: round(percentile(times, 0.5)),
    p90_ms: round(percentile(times, 0.9)),
    mean_ms: round(times.reduce((a, b) => a + b, 0) / times.length),
    iters: args.iters,
    threads: args.threads,
    peak_rss_mb: round(statusMb('VmHWM:')),
    base_rss_mb: round(baseRssMb),
  }));
}

main().catch((e) => {
  console.error(`ort_bench: ${e.message}`);
  process.exit(1);
});
