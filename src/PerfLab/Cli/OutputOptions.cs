using System.CommandLine;
using PerfLab.Common;
using PerfLab.Reports;
using PerfLab.Results;

namespace PerfLab.Cli;

/// <summary>
/// What CI reads, on the verbs that reach verdicts: `--junit FILE` (JUnit XML), `--json` (a compact summary on stdout)
/// and, whenever $GITHUB_STEP_SUMMARY names a file, a Markdown step summary appended to it.
/// </summary>
internal sealed class OutputOptions
{
    public Option<string?> Junit { get; } = new("--junit")
    {
        Description = "Also write a JUnit XML file for CI (a test case per gate, claim, verdict and failed variant; a failed gate, a "
            + "contrary claim or a worse verdict a gate read is a failure; times are the seconds measured); overwritten.",
        HelpName = "file",
    };

    public Option<bool> Json { get; } = new("--json")
    {
        Description = "Print a compact JSON summary (verdicts, changes with their 95 % intervals, gates, failures) on stdout; "
            + "everything else goes to stderr.",
    };

    public void AddTo(Command command)
    {
        command.Options.Add(Junit);
        command.Options.Add(Json);
    }

    /// <summary>Checks the JUnit file's folder before any work, and with --json moves the progress lines to stderr.</summary>
    public CiOutputs Begin(ParseResult parse, string verb)
    {
        var junit = parse.GetValue(Junit);
        if (junit is not null && !Directory.Exists(Path.GetDirectoryName(Path.GetFullPath(junit))))
        {
            throw new PerfLabException($"--junit: cannot write '{junit}': its folder does not exist.", ExitCode.Usage);
        }
        return new CiOutputs(verb, junit, parse.GetValue(Json));
    }
}

/// <summary>The CI outputs of one invocation: written once, when its summary is known.</summary>
internal sealed class CiOutputs
{
    private readonly string? _junit;
    private readonly TextWriter? _stdout;

    public CiOutputs(string verb, string? junit, bool json)
    {
        Verb = verb;
        _junit = junit;
        if (json)
        {
            // The JSON must be all that stdout carries, so a pipe into jq works: progress and reports go to stderr.
            _stdout = Console.Out;
            Console.SetOut(Console.Error);
        }
    }

    /// <summary>No --junit, no --json: only the step summary, when CI asks for one.</summary>
    public static CiOutputs StepSummaryOnly(string verb) => new(verb, null, false);

    public string Verb { get; }

    /// <summary>--json: stdout carries the JSON summary alone, so whatever else a child process prints must go to stderr.</summary>
    public bool StdoutReserved => _stdout is not null;

    public int Finish(RunResults results, string outDir, int exitCode) =>
        Finish(CiSummary.Of(results, Verb, exitCode) with { Reports = [Path.Combine(outDir, "report.md")] });

    public int Finish(CiSummary summary)
    {
        foreach (var p in summary.Problems.Where(p => p.Kind == "not applicable"))
        {
            Console.WriteLine($"not applicable: {p.Experiment} {p.Variant} ({p.Runs} runs, not counted as failures): {p.Reason}");
        }
        if (_junit is not null)
        {
            ReportWriters.WriteFile(_junit, w => JunitWriter.Write(summary, w));
            Console.WriteLine($"junit: {_junit}");
        }
        if (StepSummaryWriter.AppendIfAsked(summary) is { } stepSummary)
        {
            Console.WriteLine($"step summary appended to {stepSummary}");
        }
        if (_stdout is not null)
        {
            Console.SetOut(_stdout);
            _stdout.WriteLine(summary.ToJson());
            _stdout.Flush();
        }
        return summary.ExitCode;
    }
}
