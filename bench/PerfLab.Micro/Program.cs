using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;
using Perfolizer.Horology;

// `--quick` is ours, not BenchmarkDotNet's: a ShortRun (one launch, three warm-ups) with seven 150 ms iterations, so
// the whole suite takes about two minutes on two cores; three iterations alone left errors wider than the differences.
// Everything else goes to BenchmarkDotNet's own command line (--filter, --list, --exporters, --artifacts, ...).
var quick = args.Contains("--quick");
var config = DefaultConfig.Instance;
if (quick)
{
    config = config.AddJob(Job.ShortRun
        .WithIterationCount(7)
        .WithIterationTime(TimeInterval.FromMilliseconds(150))
        .WithId("Quick")
        .AsDefault());
}

BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args.Where(a => a != "--quick").ToArray(), config);
