using System.Text;
using System.Text.Json;
using System.Xml;
using PerfLab.History;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// `perflab history show` as text (per series: its points by commit, oldest first, then its change points), as JSON
/// (--json) and as JUnit (--junit: one test case per series, failed by a new change point for the worse).
/// </summary>
public static class HistoryText
{
    public static void Write(IReadOnlyList<SeriesAnalysis> series, TextWriter output)
    {
        foreach (var s in series)
        {
            var metric = Metrics.Find(s.Key.Metric);
            var decimals = metric?.Decimals ?? 3;
            output.WriteLine($"{s.Key} ({s.Points.Count} runs{(s.HigherIsBetter ? ", higher is better" : "")}):");
            output.WriteLine("    run  commit        started (UTC)      median [95 % CI]                floor");
            for (var i = 0; i < s.Points.Count; i++)
            {
                var (run, point, hollow) = s.Points[i];
                var figure = Fmt.Est(new Estimate(point.Median, point.Low ?? point.Median, point.High ?? point.Median, point.Samples),
                    decimals);
                var floor = point.NoiseFloorPercent is { } f ? $"{Fmt.Num(f, 1)} %" : "-";
                var started = run.StartedAt.UtcDateTime.ToString("yyyy-MM-dd HH:mm", System.Globalization.CultureInfo.InvariantCulture);
                output.WriteLine($"  {(hollow ? "○" : "●")} {i + 1,3}  {Short(run.Commit),-12}  {started}  "
                    + $"{figure} {s.Unit}".PadRight(32) + $" {floor}");
            }
            foreach (var c in s.ChangePoints)
            {
                output.WriteLine($"  change point at run {c.Index + 1} ({Short(c.FromCommit)}..{Short(c.ToCommit)}): "
                    + $"{Fmt.Change(c.ChangePercent, c.LowPercent, c.HighPercent)}, {Fmt.Verdict(c.Verdict)}, "
                    + $"p = {Fmt.Num(c.PValue, 3)}{(c.IsNew ? ", new with the newest run" : "")}");
            }
            if (s.ChangePoints.Count == 0)
            {
                output.WriteLine("  no change point");
            }
            output.WriteLine();
        }
        output.WriteLine("● a run's figure; ○ hollow: its run stated a noise floor above the change, "
            + "so it never makes a change point alone.");
    }

    /// <summary>A commit as git shows it short; what follows its hash kept ("abc1234 (modified)").</summary>
    public static string Short(string commit)
    {
        var hex = commit.TakeWhile(Uri.IsHexDigit).Count();
        return hex > 7 ? commit[..7] + commit[hex..] : commit;
    }

    public static string Json(string store, RunOrder order, IReadOnlyList<SeriesAnalysis> series)
    {
        var document = new
        {
            schemaVersion = 1,
            history = store,
            order = order.ByGit ? "git" : "time",
            orderNote = order.Said,
            series = series.Select(s => new
            {
                experiment = s.Key.Experiment, variant = s.Key.Variant, scenario = s.Key.Scenario, metric = s.Key.Metric,
                machine = s.Key.Machine, unit = s.Unit, higherIsBetter = s.HigherIsBetter,
                points = s.Points.Select(p => new
                {
                    commit = p.Run.Commit, startedAt = p.Run.StartedAt, median = p.Point.Median, low = p.Point.Low, high = p.Point.High,
                    samples = p.Point.Samples, noiseFloorPercent = p.Point.NoiseFloorPercent, hollow = p.Hollow, verdict = p.Point.Verdict,
                }),
                changePoints = s.ChangePoints.Select(c => new
                {
                    run = c.Index + 1, fromCommit = c.FromCommit, toCommit = c.ToCommit, at = c.At, changePercent = c.ChangePercent,
                    lowPercent = Finite(c.LowPercent), highPercent = Finite(c.HighPercent), pValue = c.PValue,
                    verdict = Fmt.Verdict(c.Verdict), isNew = c.IsNew,
                }),
            }),
        };
        return JsonSerializer.Serialize(document, ResultsJson.Options);
    }

    /// <summary>True when any series has a new change point for the worse: what fails --junit's test case and the exit code.</summary>
    public static bool NewRegression(SeriesAnalysis s) => s.ChangePoints.Any(c => c.IsNew && c.Verdict == Verdict.Worse);

    public static void Junit(IReadOnlyList<SeriesAnalysis> series, TextWriter output)
    {
        var settings = new XmlWriterSettings { Indent = true, Encoding = new UTF8Encoding(false), NewLineChars = "\n" };
        using var xml = XmlWriter.Create(output, settings);
        xml.WriteStartDocument();
        xml.WriteStartElement("testsuites");
        xml.WriteAttributeString("name", "perflab history");
        foreach (var group in series.GroupBy(s => s.Key.Experiment))
        {
            xml.WriteStartElement("testsuite");
            xml.WriteAttributeString("name", $"perflab history: {group.Key}");
            xml.WriteAttributeString("tests", group.Count().ToString(System.Globalization.CultureInfo.InvariantCulture));
            xml.WriteAttributeString("failures", group.Count(NewRegression).ToString(System.Globalization.CultureInfo.InvariantCulture));
            foreach (var s in group)
            {
                xml.WriteStartElement("testcase");
                xml.WriteAttributeString("classname", $"history.{s.Key.Experiment}");
                xml.WriteAttributeString("name", s.Key.ToString());
                if (NewRegression(s))
                {
                    var c = s.ChangePoints.Last(c => c.IsNew && c.Verdict == Verdict.Worse);
                    xml.WriteStartElement("failure");
                    xml.WriteAttributeString("message", $"new change point for the worse at {Short(c.FromCommit)}..{Short(c.ToCommit)}: "
                        + Fmt.Change(c.ChangePercent, c.LowPercent, c.HighPercent));
                    xml.WriteEndElement();
                }
                xml.WriteEndElement();
            }
            xml.WriteEndElement();
        }
        xml.WriteEndElement();
        xml.WriteEndDocument();
    }

    private static double? Finite(double value) => double.IsFinite(value) ? value : null;
}
