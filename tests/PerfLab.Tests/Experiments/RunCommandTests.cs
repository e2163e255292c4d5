using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Text.Json;
using PerfLab.Testing;
using PerfLab.Experiments.Running.Budget;

namespace PerfLab.Tests.Experiments;

/// <summary>`perflab run` end to end, as a child process against real PostgreSQL and real SUT processes.</summary>
[Collection(CpuHeavy.B)]
public sealed class RunCommandTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    private const string TinyExperiment = """
        name: tiny
        title: Tiny
        seed: "001"
        reproduces: nothing, a test
        baseline: a
        variants:
          - name: a
            vars: { endpoint: weatherforecast-async }
          - name: b
            settings: { DataAccess: __B_DATA_ACCESS__ }
            vars: { endpoint: weatherforecast-sync }
        load:
          scenarios:
            - name: forecast
              url: /${endpoint}?ms=__MS__
              model: closed
              users: __USERS__
        profiles:
          article: { warmup: 1s, duration: 2s, repeat: 1 }
          quick: { warmup: 1s, duration: 2s, repeat: 1 }
          smoke: { warmup: 500ms, duration: __DURATION__, repeat: 1 }
        claims:
          - text: b is slower
            variant: b
            metric: mean-ms
            seedFigure: "1 -> 2"
            seedChange: 100
        """;

    /// <param name="model">closed, or ramp (from one user, one more a step): a window the runner holds open for no cycle.</param>
    private static string WriteExperiment(string folder, string dataAccess = "sync", string duration = "1500ms", int ms = 20,
        int users = 4, string model = "closed")
    {
        Directory.CreateDirectory(folder);
        File.WriteAllText(Path.Combine(folder, "tiny.yaml"), TinyExperiment
            .Replace("model: closed", model == "ramp" ? "model: ramp\n      from: 1\n      step: 1" : "model: " + model,
                StringComparison.Ordinal)
            .Replace("__B_DATA_ACCESS__", dataAccess, StringComparison.Ordinal)
            .Replace("__DURATION__", duration, StringComparison.Ordinal)
            .Replace("__USERS__", users.ToString(System.Globalization.CultureInfo.InvariantCulture), StringComparison.Ordinal)
            .Replace("__MS__", ms.ToString(System.Globalization.CultureInfo.InvariantCulture), StringComparison.Ordinal));
        return folder;
    }

    private static string NewFolder() => Path.Combine(Path.GetTempPath(), "perflab-run-" + Guid.NewGuid().ToString("N")[..12]);

    [Fact]
    public async Task Run_SmokeProfileOfTwoExperiments_WritesTheThreeOutputs()
    {
        var db = await postgres.CreateDatabaseAsync();
        var output = NewFolder();
        var result = await PerfLabProcess.RunAsync("run", "serializer", "gc", "--profile", "smoke", "--out", output, "--connection-string", db);

        Assert.True(result.ExitCode == 0, result.ToString());
        // serializer's block serves its variants in one process, all warmed up together: no priming run before it.
        Assert.DoesNotContain("priming:", result.Stdout);
        Assert.Contains("[1/6] serializer: newtonsoft", result.Stdout);
        Assert.Contains("[2/6] serializer: system-text-json (repetition 1/1)", result.Stdout);
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "results.json")));
        var root = json.RootElement;
        Assert.Equal(2, root.GetProperty("schemaVersion").GetInt32());
        Assert.Equal("smoke", root.GetProperty("profile").GetString());
        var experiments = root.GetProperty("experiments").EnumerateArray().ToList();
        Assert.Equal(["serializer", "gc"], experiments.Select(e => e.GetProperty("name").GetString()));
        foreach (var run in experiments.SelectMany(e => e.GetProperty("runs").EnumerateArray()))
        {
            Assert.Equal("ok", run.GetProperty("status").GetString());
            Assert.All(run.GetProperty("scenarios").EnumerateArray(), s => Assert.True(s.GetProperty("requests").GetInt64() > 0));
            Assert.True(run.GetProperty("counters").TryGetProperty("threadpool-thread-count", out _), "counters were read");
            // The runtime's counters only: ASP.NET Core's would make the SUT pay for its per-request diagnostics.
            Assert.False(run.GetProperty("counters").TryGetProperty("requests-per-second", out _), "the hosting counters were read");
            Assert.NotEmpty(run.GetProperty("timeline").EnumerateArray());
        }
        foreach (var experiment in experiments)
        {
            // The duty cycle: the blocks' wall time holds their measured windows, each run's cost windows added up.
            var time = experiment.GetProperty("time");
            var measured = experiment.GetProperty("runs").EnumerateArray()
                .Sum(r => r.GetProperty("cost").GetProperty("windows").EnumerateArray().Sum(w => w.GetProperty("seconds").GetDouble()));
            // results.json gives it to the hundredth (an equality to one decimal place failed on 6.0537 against 6.05).
            Assert.InRange(time.GetProperty("measuredSeconds").GetDouble(), measured - 0.0051, measured + 0.0051);
            Assert.InRange(time.GetProperty("wallSeconds").GetDouble(), measured, 600);
        }
        var gcRuns = experiments[1].GetProperty("runs").EnumerateArray().ToDictionary(r => r.GetProperty("variant").GetString()!);
        Assert.Equal("workstation", gcRuns["workstation"].GetProperty("sutInfo").GetProperty("gc").GetString());
        Assert.Equal("server", gcRuns["server"].GetProperty("sutInfo").GetProperty("gc").GetString());

        var markdown = File.ReadAllText(Path.Combine(output, "report.md"));
        Assert.Contains("System.Text.Json instead of Newtonsoft.Json", markdown);
        Assert.Contains("Server GC", markdown);
        Assert.Contains("334.4 -> 408.4 RPS (+22 %)", markdown); // the seed reproduction table
        var html = File.ReadAllText(Path.Combine(output, "report.html"));
        Assert.Contains("data-charts-total", html); // the charts themselves are checked in headless Chromium (Reports tests)
        Assert.DoesNotContain("src=\"http", html);
    }

    private const string LockExperiment = """
        name: locked
        title: A lock around slow work
        seed: "004"
        reproduces: nothing, a test
        baseline: short
        variants:
          - name: short
            vars: { ms: "0" }
          - name: long
            vars: { ms: "2" }
        load:
          scenarios:
            - name: lock
              url: /diagnostics/lock?ms=${ms}
              model: closed
              users: 8
        profiles:
          article: { warmup: 1s, duration: 2s, repeat: 1 }
          quick: { warmup: 1s, duration: 2s, repeat: 1 }
          smoke: { warmup: 1s, duration: 2s, repeat: 1 }
        """;

    [Fact]
    public async Task Run_WithTrace_NamesTheLocksCallSiteAndShowsWhereTheTimeGoes()
    {
        var db = await postgres.CreateDatabaseAsync();
        var folder = NewFolder();
        Directory.CreateDirectory(folder);
        File.WriteAllText(Path.Combine(folder, "locked.yaml"), LockExperiment);
        var output = NewFolder();
        var result = await PerfLabProcess.RunAsync("run", "--experiments-dir", folder, "--profile", "smoke", "--trace",
            "--out", output, "--connection-string", db);

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains("tracing long for 5 s after its window", result.Stdout);
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "results.json")));
        var experiment = json.RootElement.GetProperty("experiments")[0];
        var evidence = experiment.GetProperty("evidence").EnumerateArray().ToDictionary(e => e.GetProperty("variant").GetString()!);
        Assert.Equal(["short", "long"], evidence.Keys);
        // 8 users on one lock held 2 ms: each request waits behind the others' holds. How many hold it at once is the
        // pool's threads (2 on this machine, more as the pool grows), and a waiter spins before it blocks (that part is
        // CPU acquiring, not blocked): at least half a hold blocked per request, far above the short variant's.
        var site = evidence["long"].GetProperty("contention")[0];
        Assert.Contains("CulpritsApi", site.GetProperty("method").GetString());
        var longBlocked = evidence["long"].GetProperty("lockBlockedMsPerRequest").GetDouble();
        var shortBlocked = evidence["short"].GetProperty("lockBlockedMsPerRequest").GetDouble();
        Assert.True(longBlocked > 1 && longBlocked > 3 * shortBlocked, $"long {longBlocked} ms, short {shortBlocked} ms");
        Assert.True(shortBlocked < 1, $"short {shortBlocked} ms");
        // The CPU figures are the kernel's: at most the machine's cores over the traced seconds, per request.
        var cpu = evidence["long"].GetProperty("cpuMsPerRequest").EnumerateObject().Sum(c => c.Value.GetDouble());
        var perRequestCeiling = Environment.ProcessorCount * 1000 * evidence["long"].GetProperty("tracedSeconds").GetDouble()
            / evidence["long"].GetProperty("requests").GetInt64();
        Assert.InRange(cpu, 0.1, perRequestCeiling * 1.05);
        Assert.True(File.Exists(Path.Combine(output, evidence["long"].GetProperty("speedscopeFile").GetString()!)));
        Assert.Empty(Directory.GetFiles(Path.Combine(output, "traces"), "*.nettrace")); // kept only with --keep-traces
        var finding = experiment.GetProperty("findings").EnumerateArray()
            .Single(f => f.GetProperty("variant").GetString() == "long" && f.GetProperty("kind").GetString() == "lockContention"
                         && f.GetProperty("place").GetString()!.Contains("CulpritsApi"));
        Assert.Equal("strong", finding.GetProperty("strength").GetString());
        Assert.Contains("Where the time goes", File.ReadAllText(Path.Combine(output, "report.md")));
    }

    [Fact]
    public async Task Run_UnknownExperiment_ListsTheKnownOnesAndStartsNothing()
    {
        var output = NewFolder();
        var result = await PerfLabProcess.RunAsync("run", "serialiser", "--out", output);
        Assert.Equal(2, result.ExitCode);
        Assert.Contains("unknown experiment 'serialiser'; known: db-wait-min-threads, db-wait, framework-adonet, framework, gc", result.Stderr);
        Assert.False(Directory.Exists(output));
    }

    [Fact]
    public async Task Run_MisspelledOption_NamedAsAnOptionNotAnExperiment()
    {
        var output = NewFolder();
        var result = await PerfLabProcess.RunAsync("run", "--output", output);
        Assert.Equal(2, result.ExitCode);
        Assert.Contains("unknown option '--output'; see `perflab run --help`", result.Stderr);
        Assert.False(Directory.Exists(output));
    }

    [Fact]
    public async Task Run_MalformedExperimentFile_NamesFileAndLineAndStartsNothing()
    {
        var folder = WriteExperiment(NewFolder());
        var file = Path.Combine(folder, "tiny.yaml");
        File.WriteAllText(file, File.ReadAllText(file).Replace("users: 4", "users: four", StringComparison.Ordinal));
        var output = NewFolder();
        var result = await PerfLabProcess.RunAsync("run", "--experiments-dir", folder, "--out", output);
        Assert.Equal(2, result.ExitCode);
        Assert.Matches($@"{System.Text.RegularExpressions.Regex.Escape(file)}:\d+:\d+: expected 'users'", result.Stderr);
        Assert.Contains("expected 'users' to be a whole number", result.Stderr);
        Assert.False(Directory.Exists(output));
    }

    [Fact]
    public async Task Run_OutputFolderExists_RefusesAndLeavesItAlone()
    {
        var output = NewFolder();
        Directory.CreateDirectory(output);
        File.WriteAllText(Path.Combine(output, "keep.txt"), "mine");
        var result = await PerfLabProcess.RunAsync("run", "gc", "--out", output);
        Assert.Equal(2, result.ExitCode);
        Assert.Contains("already exists", result.Stderr);
        Assert.Equal(["keep.txt"], Directory.GetFiles(output).Select(Path.GetFileName));
    }

    [Fact]
    public async Task Run_VariantWhoseSutFailsToStart_IsReportedFailedWithItsLogAndTheRestGoesOn()
    {
        var db = await postgres.CreateDatabaseAsync();
        var folder = WriteExperiment(NewFolder(), dataAccess: "bogus");
        var output = NewFolder();
        var result = await PerfLabProcess.RunAsync("run", "--experiments-dir", folder, "--profile", "smoke", "--out", output, "--connection-string", db);

        Assert.Equal(1, result.ExitCode);
        Assert.Contains("FAILED: the SUT did not start", result.Stdout);
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "results.json")));
        var runs = json.RootElement.GetProperty("experiments")[0].GetProperty("runs").EnumerateArray().ToDictionary(r => r.GetProperty("variant").GetString()!);
        Assert.Equal("ok", runs["a"].GetProperty("status").GetString());
        Assert.Equal("failed", runs["b"].GetProperty("status").GetString());
        Assert.Contains("Sut:DataAccess = 'bogus' is not valid", runs["b"].GetProperty("logTail").GetString());
        Assert.True(File.Exists(Path.Combine(output, "report.md")));
    }

    [Fact]
    public async Task Run_SutKilledMidRun_MarksThatRunFailedAndGoesOn()
    {
        var db = await postgres.CreateDatabaseAsync();
        var folder = WriteExperiment(NewFolder(), dataAccess: "async", duration: "6s");
        var output = NewFolder();
        using var perflab = Start("run", "--experiments-dir", folder, "--profile", "smoke", "--out", output, "--connection-string", db);

        await WaitForLineAsync(perflab, "[1/2]", TimeSpan.FromSeconds(60)); // after the unmeasured priming run
        var sut = await WaitForChildAsync(perflab.Process, "PerfLab.Sut", TimeSpan.FromSeconds(60));
        // Once the SUT is ready the runner checks /info and loads it. The check is usually done within 2 s, and the load
        // running; on a starved machine it was not (CI, 2026-11-30), and a SUT killed before its check is a crash too.
        await WaitForFileLineAsync(perflab, Path.Combine(output, "logs", "tiny-a-1.log"), "perflab-sut: listening on", TimeSpan.FromSeconds(60));
        await Task.Delay(TimeSpan.FromSeconds(2));
        Process.GetProcessById(sut).Kill();
        var exit = await perflab.WaitAsync(TimeSpan.FromSeconds(90));

        Assert.True(exit == 1, perflab.Output);
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "results.json")));
        var runs = json.RootElement.GetProperty("experiments")[0].GetProperty("runs").EnumerateArray().ToList();
        Assert.Equal("failed", runs[0].GetProperty("status").GetString());
        Assert.Matches("crashed|stopped early|could not run", runs[0].GetProperty("failureReason").GetString());
        Assert.Equal("ok", runs[1].GetProperty("status").GetString());
    }

    [Fact]
    public async Task Run_NoRequestCompletesInTheWindow_FailsThoseRunsSayingSoInsteadOfAComparisonOfNaN()
    {
        // A ramp of one user on a 3 s delay: its window opens with the load (a ramp has no warm-up) and closes after 1 s,
        // before the first answer. (A closed model's window would be held open until it came: WindowTests.)
        var db = await postgres.CreateDatabaseAsync();
        var folder = WriteExperiment(NewFolder(), dataAccess: "async", duration: "1s", ms: 3000, users: 1, model: "ramp");
        var output = NewFolder();

        var result = await PerfLabProcess.RunAsync("run", "--experiments-dir", folder, "--profile", "smoke", "--no-trace",
            "--out", output, "--connection-string", db);

        Assert.True(result.ExitCode != 0, result.ToString());
        Assert.DoesNotContain("Unhandled exception", result.Stderr, StringComparison.Ordinal);
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "results.json")));
        var runs = json.RootElement.GetProperty("experiments")[0].GetProperty("runs").EnumerateArray().ToList();
        Assert.Equal(2, runs.Count);
        Assert.All(runs, r =>
        {
            Assert.Equal("failed", r.GetProperty("status").GetString());
            Assert.Equal("nothingCompleted", r.GetProperty("failureKind").GetString());
            // The window is the 1 s asked for, give or take the moment the run was stopped ("1 s", "1.1 s").
            Assert.Matches(@"^no request completed in its 1(\.\d)? s measured window", r.GetProperty("failureReason").GetString());
        });
        Assert.Contains("no request completed", File.ReadAllText(Path.Combine(output, "report.md")), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_Interrupted_StopsItsProcessesAndWritesAPartialReport()
    {
        var db = await postgres.CreateDatabaseAsync();
        var folder = WriteExperiment(NewFolder(), dataAccess: "async", duration: "20s");
        var output = NewFolder();
        using var perflab = Start("run", "--experiments-dir", folder, "--profile", "smoke", "--out", output, "--connection-string", db);

        await WaitForLineAsync(perflab, "[1/2]", TimeSpan.FromSeconds(60));
        var sut = await WaitForChildAsync(perflab.Process, "PerfLab.Sut", TimeSpan.FromSeconds(60));
        // Once the measured SUT is ready the runner checks /info, attaches the counters and loads it: Ctrl+C from here
        // on must stop all of it promptly.
        await WaitForFileLineAsync(perflab, Path.Combine(output, "logs", "tiny-a-1.log"), "perflab-sut: listening on", TimeSpan.FromSeconds(60));
        var clock = Stopwatch.StartNew();
        Assert.Equal(0, Kill(perflab.Process.Id, 2)); // SIGINT, as Ctrl+C
        var exit = await perflab.WaitAsync(TimeSpan.FromSeconds(60));
        var took = clock.Elapsed;

        Assert.True(exit == 130, perflab.Output);
        // SIGTERM to the SUT has a 10 s grace before SIGKILL; everything else observes the token. Well before the 20 s
        // window would have ended, with room for a stalled host.
        Assert.True(took < TimeSpan.FromSeconds(18), $"took {took.TotalSeconds:0.0} s to stop: {perflab.Output}");
        Assert.False(PerfLab.Counters.DotnetProcesses.IsAlive(sut), "the SUT process was left running");
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "results.json")));
        Assert.True(json.RootElement.GetProperty("incomplete").GetBoolean());
        var run = Assert.Single(json.RootElement.GetProperty("experiments")[0].GetProperty("runs").EnumerateArray());
        Assert.Equal("interrupted", run.GetProperty("failureKind").GetString());
        Assert.True(File.Exists(Path.Combine(output, "report.md")));
    }

    [Fact]
    public async Task Run_InterruptedInABlocksWarmUp_WritesWhatItHasAndExits130()
    {
        // Variants taking turns run through a block of slots, a path of its own: Ctrl+C in its warm-up once lost the
        // whole run (the cost meter's database look-up threw past the block), where it must end as a single run does.
        var db = await postgres.CreateDatabaseAsync();
        var folder = NewFolder();
        Directory.CreateDirectory(folder);
        File.WriteAllText(Path.Combine(folder, "turns.yaml"), TakingTurns.Replace("smoke: { warmup: 1s", "smoke: { warmup: 30s",
            StringComparison.Ordinal));
        var output = NewFolder();
        using var perflab = Start("run", "--experiments-dir", folder, "--profile", "smoke", "--out", output, "--connection-string", db);

        await WaitForLineAsync(perflab, "[2/2]", TimeSpan.FromSeconds(90));
        await WaitForFileLineAsync(perflab, Path.Combine(output, "logs", "turns-slow-1.log"), "perflab-sut: listening on", TimeSpan.FromSeconds(60));
        await WaitForFileLineAsync(perflab, Path.Combine(output, "logs", "turns-fast-1.log"), "perflab-sut: listening on", TimeSpan.FromSeconds(60));
        // Both SUTs are up: their /info checks and the counters take a second or two, then the 30 s warm-up runs.
        await Task.Delay(TimeSpan.FromSeconds(5));
        Assert.Equal(0, Kill(perflab.Process.Id, 2)); // SIGINT, as Ctrl+C
        var exit = await perflab.WaitAsync(TimeSpan.FromSeconds(60));

        Assert.True(exit == 130, perflab.Output);
        Assert.DoesNotContain("interrupted.", perflab.Output, StringComparison.Ordinal);
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "results.json")));
        Assert.True(json.RootElement.GetProperty("incomplete").GetBoolean());
        // On a machine slow enough that the warm-up had not begun, the block has no runs to record yet: that is fine.
        var runs = json.RootElement.GetProperty("experiments").EnumerateArray().SelectMany(e => e.GetProperty("runs").EnumerateArray()).ToList();
        Assert.True(runs.Count is 0 or 2, json.RootElement.ToString());
        Assert.All(runs, r => Assert.Equal("interrupted", r.GetProperty("failureKind").GetString()));
        Assert.True(File.Exists(Path.Combine(output, "report.md")));
    }

    [Theory]
    [InlineData("--precision", "0%", "--precision: '0%' is not a percentage")]
    [InlineData("--precision", "five", "--precision: 'five' is not a percentage")]
    [InlineData("--budget", "20", "--budget: '20' needs a unit")]
    [InlineData("--budget", "soon", "--budget: 'soon' is not a duration")]
    public async Task Run_BadPrecisionOrBudget_ExitsWithUsageNamingTheOption(string option, string value, string message)
    {
        var output = NewFolder();
        var result = await PerfLabProcess.RunAsync("run", "gc", option, value, "--out", output);

        Assert.Equal(2, result.ExitCode);
        Assert.Contains(message, result.Stderr);
        Assert.False(Directory.Exists(output));
    }

    [Fact]
    public async Task Run_WithPrecision_AddsBlocksAndSaysWhyItStopped()
    {
        var db = await postgres.CreateDatabaseAsync();
        var folder = WriteExperiment(NewFolder(), dataAccess: "async", duration: "1s");
        var output = NewFolder();
        var result = await PerfLabProcess.RunAsync("run", "--experiments-dir", folder, "--profile", "smoke", "--repeat", "2",
            "--precision", "50%", "--budget", "40s", "--out", output, "--connection-string", db);

        Assert.True(result.ExitCode == 0, result.ToString());
        // Its variants run in turn: the first would meet the cold caches alone, so an unmeasured run comes first.
        Assert.Contains("priming: one unmeasured run", result.Stdout);
        Assert.True(result.Stdout.IndexOf("priming:", StringComparison.Ordinal) < result.Stdout.IndexOf("[1/", StringComparison.Ordinal),
            result.Stdout);
        Assert.Contains("tiny: block 2 done, widest half-width", result.Stdout);
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "results.json")));
        var experiment = json.RootElement.GetProperty("experiments")[0];
        var blocks = experiment.GetProperty("blocks").GetInt32();
        Assert.InRange(blocks, 2, StoppingRule.DefaultMaxBlocks);
        Assert.Equal(50, experiment.GetProperty("precisionTargetPercent").GetDouble());
        Assert.Matches("^(precision reached|budget spent)", experiment.GetProperty("stopReason").GetString());
        var runs = experiment.GetProperty("runs").EnumerateArray().ToList();
        Assert.Equal(2 * blocks, runs.Count);
        // Block k runs every variant once, rotated: a b, b a, a b, ...
        Assert.All(runs, r => Assert.Equal((r.GetProperty("order").GetInt32() + 1) / 2, r.GetProperty("repetition").GetInt32()));
        Assert.Equal(["a", "b", "b", "a"], runs.Take(4).Select(r => r.GetProperty("variant").GetString()));
    }

    [Fact]
    public async Task Run_TwoExperimentsShortOfTarget_BudgetAddsBlocksAfterBothMinimumsAndEndsWithinIt()
    {
        var db = await postgres.CreateDatabaseAsync();
        var folder = WriteExperiment(NewFolder(), dataAccess: "async", duration: "1s");
        File.WriteAllText(Path.Combine(folder, "tiny2.yaml"), File.ReadAllText(Path.Combine(folder, "tiny.yaml")).Replace("name: tiny", "name: tiny2", StringComparison.Ordinal));
        var output = NewFolder();
        // The eight minimum runs took 75 s at the suite's busiest start (three test threads beside PerfLab.Sut.Tests'
        // two), leaving none for added blocks: 100 s leaves some on any stretch seen.
        var budget = TimeSpan.FromSeconds(100);
        var result = await PerfLabProcess.RunAsync("run", "--experiments-dir", folder, "--profile", "smoke", "--repeat", "2",
            "--precision", "0.01%", "--budget", "100s", "--no-trace", "--out", output, "--connection-string", db);

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains("tiny: block 2 done, widest half-width", result.Stdout);
        Assert.Contains("more blocks once every experiment has its first ones", result.Stdout);
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "results.json")));
        var root = json.RootElement;
        var experiments = root.GetProperty("experiments").EnumerateArray().ToList();
        Assert.Equal(["tiny", "tiny2"], experiments.Select(e => e.GetProperty("name").GetString()));
        var runs = experiments.SelectMany(e => e.GetProperty("runs").EnumerateArray()
            .Select(r => (Experiment: e.GetProperty("name").GetString(), Block: r.GetProperty("repetition").GetInt32(), Order: r.GetProperty("order").GetInt32()))).ToList();
        // A 0.01 % target is never met: the time left after both minimums went to added blocks, all of them after
        // every minimum block of both experiments; then the budget said stop.
        Assert.True(runs.Count(r => r.Block > 2) >= 2, $"no block was added: {string.Join(", ", runs)}");
        var lastMinimum = runs.Where(r => r.Block <= 2).Max(r => r.Order);
        Assert.All(runs.Where(r => r.Block > 2), r => Assert.True(r.Order > lastMinimum, $"{r} ran before a minimum block ({lastMinimum})"));
        Assert.Equal(Enumerable.Range(1, runs.Count), runs.Select(r => r.Order).Order());
        Assert.All(experiments, e => Assert.StartsWith("budget spent", e.GetProperty("stopReason").GetString()));
        var took = root.GetProperty("finishedAt").GetDateTimeOffset() - root.GetProperty("startedAt").GetDateTimeOffset();
        Assert.True(took < budget + TimeSpan.FromSeconds(15), $"the run took {took}, the budget was {budget}");
    }

    private const string TakingTurns = """
        name: turns
        title: Two delays taking turns
        seed: "001"
        reproduces: nothing, a test
        baseline: fast
        variants:
          - name: fast
            vars: { ms: "20" }
          - name: slow
            vars: { ms: "40" }
        load:
          scenarios:
            - name: forecast
              url: /weatherforecast-async?ms=${ms}
              model: closed
              users: 4
        profiles:
          article: { warmup: 1s, duration: 3s, repeat: 1 }
          quick: { warmup: 1s, duration: 3s, repeat: 1 }
          smoke: { warmup: 1s, duration: 3s, slots: 3, repeat: 1 }
        claims:
          - text: slow is slower
            variant: slow
            metric: rps
            seedFigure: "200 -> 100"
            seedChange: -50
        """;

    [Fact]
    public async Task Run_Slots_EachVariantGetsItsOwnSlotsFigures()
    {
        // Known inputs: 4 users on a 20 ms and a 40 ms endpoint, two SUTs up at once taking turns in 1 s slots. If a
        // slot's requests went to the wrong variant, or throughput were counted over the block's span, the figures
        // would not be 4 / 20 ms and 4 / 40 ms.
        var db = await postgres.CreateDatabaseAsync();
        var folder = NewFolder();
        Directory.CreateDirectory(folder);
        File.WriteAllText(Path.Combine(folder, "turns.yaml"), TakingTurns);
        var output = NewFolder();
        var result = await PerfLabProcess.RunAsync("run", "--experiments-dir", folder, "--profile", "smoke", "--out", output, "--connection-string", db);

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains("measuring 3 slots of 1 s each, taking turns", result.Stdout);
        Assert.DoesNotContain("priming:", result.Stdout);
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "results.json")));
        var runs = json.RootElement.GetProperty("experiments")[0].GetProperty("runs").EnumerateArray()
            .ToDictionary(r => r.GetProperty("variant").GetString()!, r => r.GetProperty("scenarios")[0]);
        // A timer-based delay fires at most a coarse tick (4 ms) early, and a busy host only adds to a latency: no
        // 20 ms answer is among the slow variant's (slots mixed between the variants would put one there), and the fast
        // one's median is the lower. Medians, not means: a second's stall in one of the three slots moves a mean by more
        // than the 20 ms between them; and no fixed ceiling (beside two busy loops the fast median read 44 ms, the slow
        // minimum 38 ms).
        double Ms(string variant, string figure) => runs[variant].GetProperty(figure).GetDouble();
        Assert.True(Ms("slow", "minMs") >= 36, $"slow min {Ms("slow", "minMs")} ms");
        Assert.True(Ms("fast", "minMs") >= 16, $"fast min {Ms("fast", "minMs")} ms");
        Assert.True(Ms("fast", "p50Ms") < Ms("slow", "p50Ms"), $"fast p50 {Ms("fast", "p50Ms")} ms, slow p50 {Ms("slow", "p50Ms")} ms");
        // Closed model: throughput is users over latency (Little's law), counted over each variant's own slots; over
        // the block's span it would be half or less. The margin is a second's stall at a slot's end, whose answers
        // then fall outside it.
        foreach (var variant in new[] { "fast", "slow" })
        {
            Assert.InRange(Ms(variant, "rps") * Ms(variant, "meanMs") / 4000, 0.65, 1.25);
        }
        // Three 1 s slots each: the requests are those of about 3 s, not of the whole block (6 s and its warm-up).
        var fast = Ms("fast", "meanMs");
        Assert.InRange(runs["fast"].GetProperty("requests").GetInt64(), 0.6 * 3 * 4000 / fast, 1.25 * 3 * 4000 / fast);
    }

    private static async Task WaitForFileLineAsync(RunningPerflab perflab, string file, string text, TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        while (!File.Exists(file) || !(await File.ReadAllTextAsync(file)).Contains(text, StringComparison.Ordinal))
        {
            if (clock.Elapsed > timeout || perflab.Process.HasExited)
            {
                throw new TimeoutException($"{file} did not get '{text}': {perflab.Output}");
            }
            await Task.Delay(50);
        }
    }

    [DllImport("libc", EntryPoint = "kill")]
#pragma warning disable SYSLIB1054
    private static extern int Kill(int pid, int signal);
#pragma warning restore SYSLIB1054

    private static async Task<int> WaitForChildAsync(Process parent, string name, TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < timeout)
        {
            foreach (var dir in Directory.EnumerateDirectories("/proc").Where(d => int.TryParse(Path.GetFileName(d), out _)))
            {
                try
                {
                    var stat = File.ReadAllText(Path.Combine(dir, "stat"));
                    var ppid = int.Parse(stat[(stat.LastIndexOf(')') + 2)..].Split(' ')[1], System.Globalization.CultureInfo.InvariantCulture);
                    if (ppid == parent.Id && File.ReadAllText(Path.Combine(dir, "cmdline")).Contains(name, StringComparison.Ordinal))
                    {
                        return int.Parse(Path.GetFileName(dir), System.Globalization.CultureInfo.InvariantCulture);
                    }
                }
                catch (IOException)
                {
                    // The process went away while we read it.
                }
            }
            if (parent.HasExited)
            {
                throw new InvalidOperationException("perflab exited before it started the SUT");
            }
            await Task.Delay(100);
        }
        throw new TimeoutException($"no child process {name} within {timeout}");
    }

    private static async Task WaitForLineAsync(RunningPerflab perflab, string text, TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        while (!perflab.Output.Contains(text, StringComparison.Ordinal))
        {
            if (clock.Elapsed > timeout || perflab.Process.HasExited)
            {
                throw new TimeoutException($"perflab did not print '{text}': {perflab.Output}");
            }
            await Task.Delay(100);
        }
    }

    private static RunningPerflab Start(params string[] args) => new(args);

    private sealed class RunningPerflab : IDisposable
    {
        private readonly System.Text.StringBuilder _output = new();

        public RunningPerflab(string[] args)
        {
            Process = Process.Start(PerfLabProcess.WithSigintDefault(PerfLabProcess.StartInfo(null, args)))!;
            Process.OutputDataReceived += (_, e) => { lock (_output) { _output.AppendLine(e.Data); } };
            Process.ErrorDataReceived += (_, e) => { lock (_output) { _output.AppendLine(e.Data); } };
            Process.BeginOutputReadLine();
            Process.BeginErrorReadLine();
        }

        public Process Process { get; }

        public string Output
        {
            get
            {
                lock (_output)
                {
                    return _output.ToString();
                }
            }
        }

        public async Task<int> WaitAsync(TimeSpan timeout)
        {
            using var cts = new CancellationTokenSource(timeout);
            await Process.WaitForExitAsync(cts.Token);
            return Process.ExitCode;
        }

        public void Dispose()
        {
            if (!Process.HasExited)
            {
                Process.Kill(entireProcessTree: true);
            }
            Process.Dispose();
        }
    }
}
