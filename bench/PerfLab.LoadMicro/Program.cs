using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;
using Perfolizer.Horology;

// In process: the benchmarks call perflab's internals, and BenchmarkDotNet's usual generated child project would
// build the whole of perflab again for every run. `--quick` is ours: three warm-ups and fifteen 150 ms iterations a
// benchmark (about a minute for the suite), enough for these nanosecond figures; without it, BenchmarkDotNet's default job.
var quick = args.Contains("--quick");
var job = quick
    ? Job.ShortRun.WithIterationCount(15).WithIterationTime(TimeInterval.FromMilliseconds(150)).WithId("Quick")
    : Job.Default;
var config = DefaultConfig.Instance.AddJob(job.WithToolchain(InProcessEmitToolchain.Instance).AsDefault());
BenchmarkSwitcher.FromAssembly(typeof(PerfLab.LoadMicro.RequestStepBenchmarks).Assembly)
    .Run(args.Where(a => a != "--quick").ToArray(), config);
