using PerfLab.History;
using PerfLab.Results;

namespace PerfLab.Tests.History;

/// <summary>
/// Synthetic runs of one experiment ("api", one variant "app", 3 repetitions a run): throughput, latency and CPU per
/// request with about 1 % of seeded noise each, CPU per request stepping up by <c>step</c> from run <c>stepAt</c> (from
/// 1). Each run states the noise floor <c>floor</c> gives it (the run's index from 1).
/// </summary>
internal static class HistoryFixtures
{
    public static readonly DateTimeOffset Start = new(2026, 10, 1, 6, 0, 0, TimeSpan.Zero);

    public static IReadOnlyList<RunResults> Runs(int count, int stepAt, double step, Func<int, double> floor, int seed = 7)
    {
        var random = new Random(seed);
        return [.. Enumerable.Range(1, count).Select(i => Run(i, i >= stepAt ? 1 + step : 1, floor(i), random))];
    }

    public static string Commit(int run) => $"{run:x2}{new string('c', 38)}";

    private static RunResults Run(int index, double costFactor, double floor, Random random)
    {
        var started = Start.AddDays(index);
        var runs = Enumerable.Range(1, 3).Select(rep => new RunRecord
        {
            Variant = "app", Repetition = rep, Order = rep, Status = RunStatus.Ok, StartedAt = started.AddMinutes(rep),
            Scenarios = [Scenario(1000 * Noisy(random), 8 * Noisy(random), 30 * Noisy(random))],
            Counters = new Dictionary<string, double>(), StarvationInjections = 0, Timeline = [], GeneratorCpuPercent = 10,
            GeneratorSaturated = false,
            // 60,000 requests in a 60 s window; 30 s of CPU is 0.5 ms a request before the step.
            Cost = new CpuCost([new CpuWindow(60, 60_000, 30 * costFactor * Noisy(random), null)]),
        }).ToList();
        return new RunResults
        {
            StartedAt = started, FinishedAt = started.AddMinutes(5), Profile = "quick",
            Provenance = new Provenance
            {
                Commit = Commit(index), SdkVersion = "10.0.100", RuntimeVersion = "10.0.0", CpuModel = "Test CPU", LogicalCores = 2,
                OperatingSystem = "Debian", CoreLayout = new CoreLayout(null, null, null, "not pinned"), Database = "none",
                Profile = "quick", Repetitions = 3,
            },
            Experiments =
            [
                new ExperimentResult
                {
                    Name = "api", Title = "api", Seed = "-", Reproduces = "-", FileHash = "-", Baseline = "app",
                    LoadDescription = "closed: 8 users", Variants = ["app"], Scenarios = ["order"], Warmup = TimeSpan.FromSeconds(5),
                    Duration = TimeSpan.FromSeconds(60), Runs = runs, Summaries = [], Comparisons = [], Findings = [], Claims = [],
                    DecidedBy = Metrics.CpuPerRequest,
                },
            ],
            MachineNoise = new MachineNoise("measured", 2, 1, floor, floor),
        };
    }

    // About 1 % of spread: the sum of uniforms is close enough to normal, and stays positive.
    private static double Noisy(Random random) => 1 + (0.01 * (random.NextDouble() + random.NextDouble() + random.NextDouble() - 1.5) * 2);

    private static ScenarioStats Scenario(double rps, double mean, double p99) => new()
    {
        Scenario = "order", Requests = (long)(rps * 60), Rps = rps, MeanMs = mean, StdDevMs = 1, MinMs = 1, P50Ms = mean, P75Ms = mean,
        P90Ms = p99 * 0.8, P95Ms = p99 * 0.9, P99Ms = p99, P999Ms = p99 * 1.2, MaxMs = p99 * 2, BytesReceived = 1000, Errors = 0,
    };

    /// <summary>A git repository of <paramref name="count"/> empty commits in <paramref name="folder"/>: hashes, oldest first.</summary>
    public static async Task<List<string>> GitRepositoryAsync(string folder, int count)
    {
        await Apps.VersionedRepo.GitAsync(folder, "init", "-q");
        for (var i = 1; i <= count; i++)
        {
            await Apps.VersionedRepo.GitAsync(folder, "-c", "user.name=test", "-c", "user.email=test@example.invalid", "commit", "-q",
                "--allow-empty", "-m", $"commit {i}");
        }
        var listed = await Apps.VersionedRepo.GitAsync(folder, "rev-list", "--reverse", "HEAD");
        return [.. listed.Split('\n', StringSplitOptions.RemoveEmptyEntries)];
    }

    /// <summary>The runs as a store returns them, without a store: what the series analysis reads.</summary>
    public static IReadOnlyList<StoredPoint> Stored(IEnumerable<RunResults> runs) =>
        [.. runs.SelectMany(r =>
        {
            var (run, points) = HistoryIngest.From(r, "synthetic");
            return points.Select(p => new StoredPoint(run, p));
        })];
}
