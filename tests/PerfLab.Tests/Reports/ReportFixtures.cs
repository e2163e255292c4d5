using PerfLab.Experiments.Analysis;
using PerfLab.Results;

namespace PerfLab.Tests.Reports;

// A hand-built run with every shape a report must render: two experiments of three variants, a failed run with its
// log, findings, claims that hold, fail and were not measured, a user ramp, text that needs escaping, and the evidence
// of traces (EvidenceFixtures).
internal static class ReportFixtures
{
    private static readonly DateTimeOffset _start = new(2025, 3, 14, 9, 26, 53, TimeSpan.Zero);

    public static RunResults Sample() => new()
    {
        StartedAt = _start,
        FinishedAt = _start.AddMinutes(14).AddSeconds(7),
        Profile = "quick",
        Provenance = new Provenance
        {
            Commit = "0123456789abcdef0123456789abcdef01234567",
            SdkVersion = "10.0.100",
            RuntimeVersion = "10.0.0",
            CpuModel = "AMD EPYC 7763 64-Core Processor",
            LogicalCores = 2,
            OperatingSystem = "Debian GNU/Linux 13 (trixie)",
            CoreLayout = new CoreLayout("0", "1", "1", "2 cores: the generator shares CPU 1 with PostgreSQL"),
            Database = "managed PostgreSQL 17.2 on 127.0.0.1:54329",
            Profile = "quick",
            Repetitions = 2,
        },
        Experiments = [EvidenceFixtures.Serializer(WithEvidence(Serializer())), EvidenceFixtures.SyncOverAsync(SyncOverAsync())],
        MachineNoise = new MachineNoise("measured", 12.4, 9.1, 19.6, 12.8, 1.5, 96) { Comparisons = 14 },
    };

    /// <summary>The serializer experiment as the adaptive runner and the paired analysis leave it: blocks, noise, warm-ups, a window with requests in flight.</summary>
    private static ExperimentResult WithEvidence(ExperimentResult e) => e with
    {
        Blocks = 2,
        PrecisionTargetPercent = 5,
        StopReason = "maximum of 2 blocks reached: widest half-width 12.5 %, target 5 %",
        Noise = new NoiseBreakdown
        {
            WithinRunCvPercent = 4.6, ExpectedRunToRunCvPercent = 2.1, RunToRunCvPercent = 9.8, DriftPercentPerRun = -1.25, DriftShare = 0.3, Runs = 6,
        },
        Comparisons = [.. e.Comparisons.Select((c, i) => i == 0
            ? c with { Method = "paired", Pairs = 2, MinimumDetectableEffectPercent = 12.5, NoiseFloorSource = "measured" }
            : c with { MinimumDetectableEffectPercent = 20 })],
        Runs = [.. e.Runs.Select((r, i) => r with
        {
            WarmupSeconds = 4 + i,
            Settled = i != 1,
            Scenarios = i == 2 ? [.. r.Scenarios.Select(s => s with { InFlightAtEnd = 3, InFlightOldestMs = 812 })] : r.Scenarios,
        })],
    };

    /// <summary>A run with one experiment whose figures are scaled, to compare two result folders.</summary>
    public static RunResults Scaled(double rpsFactor, double spread, string commit)
    {
        var sample = Sample();
        var serializer = sample.Experiments[0];
        return sample with
        {
            Provenance = sample.Provenance with { Commit = commit },
            Experiments =
            [
                serializer with
                {
                    Summaries = serializer.Summaries.Select(s => s with
                    {
                        Scenarios = s.Scenarios.ToDictionary(
                            kv => kv.Key,
                            kv => (IReadOnlyDictionary<string, Estimate>)kv.Value.ToDictionary(
                                m => m.Key,
                                m => Scale(m.Value, m.Key == "rps" ? rpsFactor : 1 / rpsFactor, spread))),
                        AllRps = s.AllRps is null ? null : Scale(s.AllRps, rpsFactor, spread),
                    }).ToList(),
                },
            ],
        };

        static Estimate Scale(Estimate e, double factor, double spread) =>
            new(e.Median * factor, e.Median * factor * (1 - spread), e.Median * factor * (1 + spread), e.Samples);
    }

    private static ExperimentResult Serializer()
    {
        string[] variants = ["newtonsoft", "system-text-json", "system-text-json-sourcegen"];
        string[] scenarios = ["order", "orders"];
        double[] orderRps = [284.4, 348.1, 370.8];
        double[] ordersRps = [50.0, 60.3, 62.9];
        var runs = new List<RunRecord>();
        var order = 1;
        for (var rep = 1; rep <= 2; rep++)
        {
            for (var v = 0; v < variants.Length; v++)
            {
                var wobble = rep == 1 ? 0.98 : 1.02;
                if (v == 2 && rep == 2)
                {
                    runs.Add(Failed(variants[v], rep, order++));
                    continue;
                }
                runs.Add(Run(variants[v], rep, order++, users: _ => 10,
                    [Scenario("order", orderRps[v] * wobble, 1000 * 10 / (orderRps[v] * wobble)),
                     Scenario("orders", ordersRps[v] * wobble, 1000 * 10 / (ordersRps[v] * wobble))],
                    threads: 12 + v, queue: 0.2, allocRate: 15.6e6 - (v * 2e6), workingSet: 352 - (v * 37)));
            }
        }

        return new ExperimentResult
        {
            Name = "serializer",
            Title = "Newtonsoft.Json vs System.Text.Json",
            Seed = "000",
            Reproduces = "table 2 and 3: serializer RPS and mean latency, allocation rate and working set",
            FileHash = "sha256:5f1c2a",
            Baseline = "newtonsoft",
            LoadDescription = "closed: 10 users per scenario",
            Variants = variants,
            Scenarios = scenarios,
            Warmup = TimeSpan.FromSeconds(10),
            Duration = TimeSpan.FromSeconds(90),
            Runs = runs,
            Summaries =
            [
                Summary("newtonsoft", 2, 0, [("order", 284.4, 35.14, 61.2), ("orders", 50.0, 199.65, 310.5)], 334.4,
                    threads: 12.0, queue: 0.2, gc: 4.1, alloc: 15.599e6, ws: 351.977, cpu: 3.512, kb: 48.2, pause: 0.142),
                Summary("system-text-json", 2, 0, [("order", 348.1, 28.7, 50.3), ("orders", 60.3, 165.78, 270.1)], 408.4,
                    threads: 13.0, queue: 0.2, gc: 3.0, alloc: 11.693e6, ws: 278.454, cpu: 2.871, kb: 29.6, pause: 0.101),
                Summary("system-text-json-sourcegen", 1, 1, [("order", 370.8, 26.94, 47.9), ("orders", 62.9, 158.88, 262.0)], 433.7,
                    threads: 14.0, queue: 0.2, gc: 2.8, alloc: 11.1e6, ws: 270.0, cpu: 2.7, kb: 27.5, pause: 0.097, samples: 1),
            ],
            Comparisons =
            [
                Compare("system-text-json", "all", "rps", true, 22.1, 15.3, 29.4, Verdict.Better),
                Compare("system-text-json", "order", "mean-ms", false, -18.3, -24.0, -11.9, Verdict.Better),
                Compare("system-text-json", "orders", "mean-ms", false, -17.0, -25.1, 2.2, Verdict.Inconclusive),
                Compare("system-text-json-sourcegen", "all", "rps", true, 29.7, double.NaN, double.NaN, Verdict.Inconclusive),
                // Decided by cost (decide: cost), RPS beside it: the summary and the charts lead with these.
                Compare("system-text-json", "all", "cpu-per-request", false, -12.0, -15.0, -9.0, Verdict.Better),
                Compare("system-text-json-sourcegen", "all", "cpu-per-request", false, -14.2, double.NaN, double.NaN, Verdict.Inconclusive),
            ],
            DecidedBy = Metrics.Get("cpu-per-request"),
            Findings = [],
            Claims =
            [
                new ClaimCheck
                {
                    Seed = "000", Claim = "System.Text.Json instead of Newtonsoft.Json: more RPS", SeedFigure = "+22 % RPS",
                    OurFigure = "+22.1 % [+15.3, +29.4]", DirectionHolds = true, Outcome = ClaimOutcome.Holds, Note = "clears the ±3.0 % noise floor",
                },
                new ClaimCheck
                {
                    Seed = "000", Claim = "source-generated serializer: +6 % more", SeedFigure = "+6 % RPS",
                    OurFigure = "—", DirectionHolds = null, Note = "one successful run: no interval | no verdict",
                },
            ],
        };
    }

    private static ExperimentResult SyncOverAsync()
    {
        string[] variants = ["async", "sync-over-async", "sync-over-async-min-threads"];
        double[] rps = [210.0, 61.5, 205.3];
        double[] mean = [462.0, 1471.0, 470.2];
        var runs = new List<RunRecord>();
        var order = 1;
        for (var rep = 1; rep <= 2; rep++)
        {
            for (var v = 0; v < variants.Length; v++)
            {
                var wobble = rep == 1 ? 0.97 : 1.03;
                runs.Add(Run(variants[v], rep, order++, users: s => 10 + (s * 9),
                    [Scenario("products", rps[v] * wobble, mean[v] * (2 - wobble))],
                    threads: v == 1 ? 40 : 14, queue: v == 1 ? 55 : 0, allocRate: 8e6, workingSet: 190,
                    starvation: v == 1 ? 7 + rep : 0, lagging: v == 1));
            }
        }

        return new ExperimentResult
        {
            Name = "sync-over-async",
            Title = "Task.Wait() instead of await, with a 200 ms wait",
            Seed = "004",
            Reproduces = "the RPS-against-users charts and 0.46 s vs 1.47 s average",
            FileHash = "sha256:a9e301",
            Baseline = "async",
            LoadDescription = "closed: users ramping from 10 to 100",
            Variants = variants,
            Scenarios = ["products"],
            Warmup = TimeSpan.FromSeconds(5),
            Duration = TimeSpan.FromMinutes(2),
            Runs = runs,
            Summaries =
            [
                Summary("async", 2, 0, [("products", 210.0, 462.0, 530.1)], 210.0,
                    threads: 14, queue: 0, gc: 1.2, alloc: 8e6, ws: 190, cpu: 1.1, kb: 21.0, pause: 0.02),
                Summary("sync-over-async", 2, 0, [("products", 61.5, 1471.0, 2830.4)], 61.5,
                    threads: 40, queue: 55, gc: 0.9, alloc: 8e6, ws: 190, cpu: 1.3, kb: 21.4, pause: 0.03),
                Summary("sync-over-async-min-threads", 2, 0, [("products", 205.3, 470.2, 541.0)], 205.3,
                    threads: 101, queue: 0, gc: 1.1, alloc: 8e6, ws: 205, cpu: 1.2, kb: 21.1, pause: 0.02),
            ],
            Comparisons =
            [
                Compare("sync-over-async", "all", "rps", true, -70.7, -74.2, -66.8, Verdict.Worse),
                Compare("sync-over-async", "products", "mean-ms", false, 218.4, 190.0, 247.9, Verdict.Worse),
                Compare("sync-over-async-min-threads", "all", "rps", true, -2.2, -2.8, 1.9, Verdict.Equivalent),
            ],
            Findings =
            [
                new Finding("sync-over-async", FindingKind.ThreadPoolStarvation,
                    "the thread-pool queue stayed above zero for 92 % of the run while the thread count climbed 12 → 43",
                    "await the call instead of Task.Wait()/.Result (seed 004), or raise ThreadPool.SetMinThreads (seed 000)",
                    "queue length median 55; 8 starvation injections"),
            ],
            Claims =
            [
                new ClaimCheck
                {
                    Seed = "004", Claim = "Task.Wait() instead of await: mean latency 0.46 s → 1.47 s", SeedFigure = "1.47 s vs 0.46 s",
                    OurFigure = "1471.0 ms vs 462.0 ms", DirectionHolds = true, Outcome = ClaimOutcome.Holds, Note = "",
                },
                new ClaimCheck
                {
                    Seed = "004", Claim = "min threads make sync-over-async level with async", SeedFigure = "\"level\"",
                    OurFigure = "-2.2 % [-2.8, +1.9]", DirectionHolds = false, Outcome = ClaimOutcome.Equivalent,
                    Note = "our <b>difference</b> is within the noise, which is what \"level\" means; counted as not holding because the claim names no figure",
                },
            ],
        };
    }

    private static RunRecord Run(
        string variant, int rep, int order, Func<int, int> users, IReadOnlyList<ScenarioStats> scenarios,
        double threads, double queue, double allocRate, double workingSet, int starvation = 0, bool lagging = false)
    {
        var total = scenarios.Sum(s => s.Rps);
        var timeline = Enumerable.Range(0, 11).Select(second => new TimelinePoint
        {
            Second = second,
            // A lagging variant serves little until the pool has grown (seed 004's second chart).
            Rps = Math.Round(lagging ? total * Math.Min(1, 0.2 + (second * second / 80.0)) : total * (0.9 + (second % 3 * 0.05)), 1),
            P50Ms = 100 + second,
            P99Ms = lagging ? 900 + (second * 120) : 250 + (second * 3),
            Errors = 0,
            Users = users(second),
            Counters = new Dictionary<string, double>
            {
                ["threadpool-thread-count"] = Math.Round(lagging ? 4 + (second * threads / 10) : threads, 1),
                ["threadpool-queue-length"] = lagging ? Math.Max(0, 60 - (second * 5)) : queue,
            },
        }).ToList();

        return new RunRecord
        {
            Variant = variant,
            Repetition = rep,
            Order = order,
            Status = RunStatus.Ok,
            StartedAt = _start.AddSeconds(order * 100),
            SutInfo = new Dictionary<string, string> { ["runtime"] = "10.0.0", ["variant"] = variant },
            Scenarios = scenarios,
            Counters = new Dictionary<string, double>
            {
                ["threadpool-thread-count"] = threads,
                ["threadpool-queue-length"] = queue,
                ["alloc-rate"] = allocRate,
                ["working-set"] = workingSet,
                ["time-in-gc"] = 3.5,
            },
            StarvationInjections = starvation,
            Timeline = timeline,
            GeneratorCpuPercent = 41.5 + order,
            GeneratorSaturated = false,
        };
    }

    private static RunRecord Failed(string variant, int rep, int order) => new()
    {
        Variant = variant,
        Repetition = rep,
        Order = order,
        Status = RunStatus.Failed,
        FailureReason = "the SUT exited with code 134 during warm-up",
        LogTail = "info: Microsoft.Hosting.Lifetime[14]\n      Now listening on: http://127.0.0.1:41234\nProcess terminated. ``` Fatal error.\n   at PerfLab.Sut.Orders.OrdersApi.GetOrder(Int32 id)",
        StartedAt = _start.AddSeconds(order * 100),
        Scenarios = [],
        Counters = new Dictionary<string, double>(),
        StarvationInjections = 0,
        Timeline = [],
        GeneratorCpuPercent = 0,
        GeneratorSaturated = false,
    };

    private static ScenarioStats Scenario(string name, double rps, double meanMs) => new()
    {
        Scenario = name,
        Requests = (long)(rps * 90),
        Rps = Math.Round(rps, 2),
        MeanMs = Math.Round(meanMs, 2),
        StdDevMs = Math.Round(meanMs / 4, 2),
        MinMs = Math.Round(meanMs / 3, 2),
        P50Ms = Math.Round(meanMs * 0.95, 2),
        P75Ms = Math.Round(meanMs * 1.1, 2),
        P90Ms = Math.Round(meanMs * 1.4, 2),
        P95Ms = Math.Round(meanMs * 1.6, 2),
        P99Ms = Math.Round(meanMs * 1.9, 2),
        P999Ms = Math.Round(meanMs * 2.5, 2),
        MaxMs = Math.Round(meanMs * 3, 2),
        BytesReceived = (long)(rps * 90 * 1024),
        Errors = 0,
    };

    private static VariantSummary Summary(
        string variant, int ok, int failed, (string Scenario, double Rps, double Mean, double P99)[] scenarios, double allRps,
        double threads, double queue, double gc, double alloc, double ws, double cpu, double kb, double pause, int samples = 2)
    {
        Estimate E(double median) => samples < 2 ? new(median, median, median, samples) : new(median, median * 0.96, median * 1.04, samples);
        return new VariantSummary
        {
            Variant = variant,
            SuccessfulRuns = ok,
            FailedRuns = failed,
            Scenarios = scenarios.ToDictionary(
                s => s.Scenario,
                s => (IReadOnlyDictionary<string, Estimate>)new Dictionary<string, Estimate>
                {
                    ["rps"] = E(s.Rps), ["mean-ms"] = E(s.Mean), ["p90-ms"] = E(Math.Round(Math.Min(s.Mean * 1.4, s.P99 * 0.9), 2)), ["p99-ms"] = E(s.P99),
                }),
            AllRps = E(allRps),
            Counters = new Dictionary<string, Estimate>
            {
                ["threadpool-thread-count"] = E(threads), ["threadpool-queue-length"] = E(queue), ["time-in-gc"] = E(gc),
                ["alloc-rate"] = E(alloc), ["working-set"] = E(ws),
            },
            Efficiency = new Dictionary<string, Estimate>
            {
                ["cpu-ms-per-request"] = E(cpu), ["alloc-kb-per-request"] = E(kb), ["gc-pause-ms-per-request"] = E(pause),
            },
        };
    }

    private static Comparison Compare(
        string variant, string scenario, string metric, bool higherIsBetter, double change, double low, double high, Verdict verdict) => new()
    {
        Variant = variant,
        Scenario = scenario,
        Metric = Metrics.Get(metric),
        HigherIsBetter = higherIsBetter,
        ChangePercent = change,
        LowPercent = low,
        HighPercent = high,
        NoiseFloorPercent = 3.0,
        Verdict = verdict,
        ToDecide = verdict == Verdict.Inconclusive ? VariantStatistics.ToDecide(change, low, high, 2, 3.0, paired: false) : null,
    };
}
