using System.Globalization;
using PerfLab.Experiments.Running;
using PerfLab.Experiments.Running.Budget;
using PerfLab.Reports;
using PerfLab.Results;

namespace PerfLab.Cli;

/// <summary>
/// Plain progress lines: one when a run starts (with the ETA of the whole run), one with its figures; any other line of
/// progress indented under the run it belongs to once runs have started, flush before (the lab's preparation).
/// </summary>
public sealed class ConsoleRunObserver : IRunObserver
{
    private volatile bool _running;

    public void RunStarting(RunPosition p)
    {
        _running = true;
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"[{p.Index}/{p.Total}] {p.Experiment}: {p.Variant} (repetition {p.Repetition}/{p.Repetitions}){Eta(p.Remaining)}"));
    }

    private static string Eta(TimeSpan? remaining) =>
        remaining is { } r ? $"  ETA {Fmt.Duration(TimeSpan.FromSeconds(Math.Round(r.TotalSeconds)))}" : "";

    public void RunFinished(RunPosition p, RunRecord record)
    {
        if (record.Status != RunStatus.Ok)
        {
            Console.WriteLine($"    FAILED: {record.FailureReason}");
            if (record.LogTail is { Length: > 0 } tail)
            {
                Console.WriteLine(tail);
            }
            return;
        }
        foreach (var s in record.Scenarios)
        {
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"    {s.Scenario}: {s.Rps:0.0} RPS, mean {s.MeanMs:0.0} ms, p99 {s.P99Ms:0.0} ms, {s.Errors} errors"));
        }
        if (p.Repetition == 1 && (record.Confirmed.Count > 0 || record.Unconfirmed.Count > 0))
        {
            Console.WriteLine($"    confirmed: {(record.Confirmed.Count > 0 ? string.Join("; ", record.Confirmed) : "nothing asked")}" +
                (record.Unconfirmed.Count > 0 ? $"; unconfirmed: {string.Join("; ", record.Unconfirmed)}" : ""));
        }
        if (record.BatchTimesMs.Count > 0)
        {
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"    batches: {string.Join(", ", record.BatchTimesMs.Select(b => b.ToString("0", CultureInfo.InvariantCulture)))} ms"));
        }
    }

    public void BlockFinished(BlockProgress p)
    {
        // Only adaptive runs say anything: a fixed number of blocks needs no running commentary.
        if (p.TargetPercent is null)
        {
            return;
        }
        var widest = StoppingRule.Describe(p.WidestHalfWidthPercent);
        var decision = p.Decision.Stop ? $": stop, {p.Decision.Reason}" : $": {p.Decision.Reason ?? "one more block"}";
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"    {p.Experiment}: block {p.Block} done, widest half-width {widest} (target {p.TargetPercent:0.#} %){decision}"));
    }

    public void Report(string value) => Console.WriteLine(_running ? $"    {value}" : value);

    public static void PrintSummary(RunResults results, string outDir)
    {
        Console.WriteLine();
        SummaryContent.WriteText(Console.Out, results);
        if (results.Incomplete)
        {
            Console.WriteLine($"incomplete: {results.IncompleteReason}");
        }
        if (results.Thresholds.Count > 0)
        {
            Console.WriteLine();
            ThresholdSection.WriteText(Console.Out, results.Thresholds);
        }
        Console.WriteLine($"report: {Path.Combine(outDir, "report.md")}");
        Console.WriteLine($"        {Path.Combine(outDir, "report.html")}");
        Console.WriteLine($"        {Path.Combine(outDir, "results.json")}");
    }
}
