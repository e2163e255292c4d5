using System.Globalization;
using PerfLab.Common;

namespace PerfLab.Micro;

/// <summary>What <c>perflab micro</c> was asked to run.</summary>
public sealed record MicroRunOptions(IReadOnlyList<string> Benchmarks, bool Quick, string OutDirectory, string Command);

/// <summary>What a run produced: the comparison and where it was written.</summary>
public sealed record MicroRunOutcome(
    MicroComparison Comparison,
    string Summary,
    string SummaryPath,
    string TablesPath,
    IReadOnlyList<string> NotMeasured,
    int BenchmarkDotNetExitCode,
    bool Interrupted,
    string? Hung = null)
{
    public bool Complete => !Interrupted && BenchmarkDotNetExitCode == 0 && NotMeasured.Count == 0;
}

/// <summary>Builds and runs the BenchmarkDotNet project bench/PerfLab.Micro of the PerfLab source tree.</summary>
public sealed class MicroSuite
{
    private readonly IProgress<string> _progress;

    // How long each child may print nothing before it is taken for hung. BenchmarkDotNet prints a line per iteration
    // and a build prints at least its result, so these are far beyond any healthy pause (a cold NuGet restore
    // included).
    internal static readonly TimeSpan BuildSilenceLimit = TimeSpan.FromMinutes(10);
    internal static readonly TimeSpan ListSilenceLimit = TimeSpan.FromMinutes(2);
    internal static readonly TimeSpan RunSilenceLimit = TimeSpan.FromMinutes(10);

    public MicroSuite(string repoRoot, IProgress<string> progress)
    {
        RepoRoot = repoRoot;
        _progress = progress;
        ProjectDirectory = Path.Combine(repoRoot, "bench", "PerfLab.Micro");
    }

    public string RepoRoot { get; }
    public string ProjectDirectory { get; }
    public string ProjectPath => Path.Combine(ProjectDirectory, "PerfLab.Micro.csproj");
    public string AssemblyPath => Path.Combine(ProjectDirectory, "bin", "Release", "net10.0", "PerfLab.Micro.dll");

    /// <summary>The suite of the source tree perflab was built from (its <c>PerfLab.RepoRoot</c> metadata).</summary>
    public static MicroSuite Locate(IProgress<string> progress)
    {
        var root = PerfLabPaths.RepoRoot;
        var suite = new MicroSuite(root, progress);
        if (!File.Exists(suite.ProjectPath))
        {
            throw new PerfLabException(
                $"perflab micro needs the PerfLab source tree it was built from; bench/PerfLab.Micro was not found under '{root}'.",
                ExitCode.Environment);
        }
        return suite;
    }

    // Builds the suite and chooses what to run: the benchmarks the filters match, plus the baseline of each seed table
    // they touch, so every ratio has its denominator. Nothing matching is a usage error that lists what exists.
    public async Task<(IReadOnlyList<string> Available, IReadOnlyList<string> Selected)> PrepareAsync(
        IReadOnlyList<string> filters, CancellationToken ct)
    {
        await BuildAsync(ct);
        var available = await ListAsync(ct);
        var selected = MicroFilter.Select(available, filters);
        if (selected.Count == 0)
        {
            throw new PerfLabException(MicroFilter.NothingMatches(filters, available), ExitCode.Usage);
        }
        var withBaselines = MicroFilter.WithBaselines(selected, available, SeedTables.All);
        foreach (var added in withBaselines.Except(selected))
        {
            _progress.Report($"micro: also running {MicroFilter.ShortName(added)}, the baseline of its seed table.");
        }
        return (available, withBaselines);
    }

    public async Task BuildAsync(CancellationToken ct)
    {
        _progress.Report("micro: building bench/PerfLab.Micro (Release)...");
        var log = new List<string>();
        var rc = await RunDotnetAsync(["build", ProjectPath, "-c", "Release", "-nologo", "-v", "q"], BuildSilenceLimit, log.Add, ct);
        if (rc != 0 || !File.Exists(AssemblyPath))
        {
            throw new PerfLabException(
                $"building bench/PerfLab.Micro failed (exit code {rc}):\n{string.Join("\n", log.TakeLast(30))}",
                ExitCode.Environment);
        }
    }

    /// <summary>Every benchmark of the suite, as BenchmarkDotNet lists them (<c>Namespace.Class.Method</c>).</summary>
    public async Task<IReadOnlyList<string>> ListAsync(CancellationToken ct)
    {
        var lines = new List<string>();
        var rc = await RunDotnetAsync([AssemblyPath, "--list", "flat"], ListSilenceLimit, lines.Add, ct);
        var names = lines.Select(l => l.Trim())
            .Where(l => l.Length > 0 && l.All(c => char.IsLetterOrDigit(c) || c is '.' or '_'))
            .Distinct(StringComparer.Ordinal)
            .ToList();
        if (rc != 0 || names.Count == 0)
        {
            throw new PerfLabException(
                $"could not list the benchmarks of bench/PerfLab.Micro (exit code {rc}):\n{string.Join("\n", lines.TakeLast(20))}",
                ExitCode.Environment);
        }
        return names;
    }

    public async Task<MicroRunOutcome> RunAsync(MicroRunOptions options, IReadOnlyList<string> available, CancellationToken ct)
    {
        var outDirectory = Path.GetFullPath(options.OutDirectory);
        var artifacts = Path.Combine(outDirectory, "benchmarkdotnet");
        Directory.CreateDirectory(outDirectory);
        // Results of an earlier run in the same folder would be read back as ours.
        if (Directory.Exists(Path.Combine(artifacts, "results")))
        {
            Directory.Delete(Path.Combine(artifacts, "results"), recursive: true);
        }

        var loadBefore = LoadAverage();
        var logPath = Path.Combine(outDirectory, "benchmarkdotnet.log");
        _progress.Report($"micro: running {options.Benchmarks.Count} benchmark(s){(options.Quick ? " with the quick job" : "")}; "
            + $"BenchmarkDotNet's log: {logPath}");
        var (rc, interrupted, hung) = await RunBenchmarkDotNetAsync(Arguments(options, available, artifacts), logPath, ct);

        var results = BenchmarkDotNetJson.ReadDirectory(Path.Combine(artifacts, "results"));
        var comparison = MicroComparer.Compare(results, SeedTables.All);
        var summary = MicroSummaryWriter.Render(comparison, options.Command)
            + Afterword(loadBefore, LoadAverage(), interrupted, hung);
        var summaryPath = Path.Combine(outDirectory, "summary.md");
        var tablesPath = Path.Combine(outDirectory, "tables.md");
        await File.WriteAllTextAsync(summaryPath, summary, CancellationToken.None);
        await File.WriteAllTextAsync(tablesPath, RenderTables(Path.Combine(artifacts, "results"), options.Command), CancellationToken.None);

        // A method with [Params] is several cases: it counts as measured only when every case has a mean.
        var notMeasured = options.Benchmarks
            .Where(name => !results.Benchmarks.Any(b => b.MethodFullName == name)
                || results.Benchmarks.Any(b => b.MethodFullName == name && b.MeanNs is null))
            .ToList();
        return new MicroRunOutcome(comparison, summary, summaryPath, tablesPath, notMeasured, rc, interrupted, hung);
    }

    private List<string> Arguments(MicroRunOptions options, IReadOnlyList<string> available, string artifacts)
    {
        var arguments = new List<string> { AssemblyPath };
        if (options.Quick)
        {
            arguments.Add("--quick");
        }
        arguments.Add("--filter");
        // Exact names, so that BenchmarkDotNet runs precisely what our own matching chose.
        arguments.AddRange(options.Benchmarks.Count == available.Count ? ["*"] : options.Benchmarks);
        arguments.AddRange(["--exporters", "json", "github", "--artifacts", artifacts]);
        return arguments;
    }

    // BenchmarkDotNet's whole output goes to its log; the start of each benchmark shows as progress. Ctrl+C and a hang
    // end the run, not the command: what finished before is still summarized.
    private async Task<(int ExitCode, bool Interrupted, string? Hung)> RunBenchmarkDotNetAsync(
        IReadOnlyList<string> arguments, string logPath, CancellationToken ct)
    {
        await using var log = new StreamWriter(logPath) { AutoFlush = true };
        try
        {
            var rc = await RunDotnetAsync(arguments, RunSilenceLimit, line =>
            {
                log.WriteLine(line);
                if (line.StartsWith("// Benchmark: ", StringComparison.Ordinal)
                    || line.StartsWith("// ** Remained", StringComparison.Ordinal))
                {
                    _progress.Report("micro: " + line[3..]);
                }
            }, ct);
            return (rc, false, null);
        }
        catch (OperationCanceledException)
        {
            return (-1, true, null);
        }
        catch (PerfLabException ex) when (ex.InnerException is TimeoutException)
        {
            return (-1, false, ex.Message);
        }
    }

    private static string Afterword(string? loadBefore, string? loadAfter, bool interrupted, string? hung)
    {
        var text = "";
        if (loadBefore is not null)
        {
            // Nanosecond benchmarks on a shared machine move with its load: the figures need this beside them.
            text += string.Create(CultureInfo.InvariantCulture,
                $"\nMachine load: 1-minute load average {loadBefore} at the start, {loadAfter} at the end, "
                    + $"on {Environment.ProcessorCount} logical cores.\n");
            if (Overloaded(loadBefore) || Overloaded(loadAfter))
            {
                text += "A load above the core count means the benchmarks waited for a CPU: their means are inflated unevenly, "
                    + "so the ratios above say more about the machine than about the code. Run again on a quieter machine.\n";
            }
        }
        if (interrupted)
        {
            text += "\nInterrupted: only the classes that finished before Ctrl+C are shown.\n";
        }
        if (hung is not null)
        {
            text += $"\nStopped: BenchmarkDotNet ({hung}) Only the classes that finished before are shown.\n";
        }
        return text;
    }

    // Both streams to one callback, in the order they arrive: a failed build's errors read in place in its log.
    private Task<int> RunDotnetAsync(IReadOnlyList<string> arguments, TimeSpan silenceLimit, Action<string> onLine,
        CancellationToken ct) =>
        ProcessRunner.RunAsync(new ProcessSpec(ProcessRunner.DotnetHost, arguments)
        {
            WorkingDirectory = RepoRoot,
            SilenceLimit = silenceLimit,
            OnOutputLine = onLine,
            OnErrorLine = onLine,
        }, ct);

    private static bool Overloaded(string? load) =>
        double.TryParse(load, NumberStyles.Float, CultureInfo.InvariantCulture, out var value) && value > Environment.ProcessorCount;

    private static string? LoadAverage()
    {
        try
        {
            return File.Exists("/proc/loadavg") ? File.ReadAllText("/proc/loadavg").Split(' ')[0] : null;
        }
        catch (IOException)
        {
            return null;
        }
    }

    private static string RenderTables(string resultsDirectory, string command)
    {
        var parts = new List<string> { $"# BenchmarkDotNet tables\n\nCommand: `{command}`\n" };
        if (Directory.Exists(resultsDirectory))
        {
            foreach (var file in Directory.GetFiles(resultsDirectory, "*-report-github.md").Order(StringComparer.Ordinal))
            {
                var title = Path.GetFileName(file).Replace("-report-github.md", "", StringComparison.Ordinal);
                parts.Add($"## {title}\n\n{File.ReadAllText(file).Trim()}\n");
            }
        }
        return string.Join("\n", parts);
    }
}
