using PerfLab.Reports;
using PerfLab.Results;

namespace PerfLab.Tests.Reports;

/// <summary>The sweep sections of report.md and results.json, on a sweep whose figures were chosen by hand.</summary>
public sealed class SweepReportTests
{
    private static string Markdown(RunResults results)
    {
        using var writer = new StringWriter();
        new MarkdownReportWriter().Write(results, writer);
        return writer.ToString();
    }

    [Fact]
    public void Markdown_Sweep_StatesTheCrossoverOrItsAbsenceAndTabulatesEveryPoint()
    {
        var md = Markdown(SweepFixtures.Sample());

        Assert.Contains("[sweep sync-async-rtt](#sweep-sync-async-rtt).", md);
        Assert.Contains("## Sweeps", md);
        Assert.Contains("### Sweep sync-async-rtt: async/await against blocking data access, by database round-trip time", md);
        Assert.Contains("Each value of database-rtt (0 ms, 0.5 ms, 1 ms, 2 ms, 5 ms) ran as an experiment of its own", md);
        Assert.Contains("- **Crossover:** async: crossover at 2 ms, the first value where its change is decided better; not decided better at 5 ms.", md);
        Assert.Contains("- **Crossover:** sync-min-threads: no crossover within the values measured (0 ms to 5 ms).", md);
        Assert.Contains("| database-rtt | point | async vs sync | sync-min-threads vs sync |", md);
        Assert.Contains("| 0 ms | `sync-async-rtt@0-ms` | -10.0 % [-14.0, -6.0] worse | +1.0 % [-3.0, +5.0] equivalent |", md);
        Assert.Contains("| 2 ms | `sync-async-rtt@2-ms` | **+12.0 % [+8.0, +16.0] better** | +1.0 % [-3.0, +5.0] equivalent |", md);
        Assert.Contains("| 5 ms | not run | no comparison | no comparison |", md);
        // The summary states each crossover first; the seed reproduction follows it, the sweeps' details come last.
        Assert.Contains("- sweep sync-async-rtt: async: crossover at 2 ms", md);
        Assert.True(md.IndexOf("## Seed reproduction", StringComparison.Ordinal) < md.IndexOf("## Sweeps", StringComparison.Ordinal));
    }

    [Fact]
    public void Markdown_DecidedBetterAtTheFirstValue_SaysTheCrossoverIsAtOrBelowIt()
    {
        var sweep = SweepFixtures.Sweep();
        var better = sweep.Variants[0] with
        {
            Points = sweep.Variants[0].Points.Select(p => p with { Verdict = Verdict.Better }).ToList(),
            Crossover = 0,
        };
        var md = Markdown(ReportFixtures.Sample() with { Sweeps = [sweep with { Variants = [better] }] });

        Assert.Contains("async: decided better already at the lowest value measured, 0 ms (the crossover is at or below it).", md);
    }

    [Fact]
    public void Markdown_NeverBetterButWorse_SaysWhereItWasWorse()
    {
        var sweep = SweepFixtures.Sweep();
        var undecided = sweep.Variants[0] with
        {
            Points = sweep.Variants[0].Points.Select(p => p.Verdict == Verdict.Better ? p with { Verdict = Verdict.Inconclusive } : p).ToList(),
            Crossover = null,
        };
        var md = Markdown(ReportFixtures.Sample() with { Sweeps = [sweep with { Variants = [undecided] }] });

        Assert.Contains("async: no crossover within the values measured (0 ms to 5 ms); decided worse at 0 ms.", md);
    }

    [Fact]
    public void Markdown_RunWithoutSweeps_HasNoSweepSection()
    {
        Assert.DoesNotContain("Sweeps", Markdown(ReportFixtures.Sample()));
    }

    [Fact]
    public void ResultsJson_Sweep_RoundTripsWithConditionAsText()
    {
        var json = ResultsJson.Serialize(SweepFixtures.Sample());

        Assert.Contains("\"condition\": \"databaseRtt\"", json);
        Assert.Contains("\"crossover\": 2", json);
        var back = ResultsJson.Deserialize(json, "results.json");
        var sweep = Assert.Single(back.Sweeps!);
        Assert.Equal(SweepFixtures.Sweep().Values, sweep.Values);
        Assert.Equal(SweepFixtures.Sweep().Points, sweep.Points);
        Assert.Equal(SweepFixtures.Sweep().Variants[0].Points, sweep.Variants[0].Points);
        // A run without sweeps writes no sweeps key at all (results.json of earlier runs stays as it was).
        Assert.DoesNotContain("\"sweeps\"", ResultsJson.Serialize(ReportFixtures.Sample()));
    }
}
