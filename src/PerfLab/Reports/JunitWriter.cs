using System.Globalization;
using System.Text;
using System.Xml;

namespace PerfLab.Reports;

/// <summary>
/// A JUnit XML file of a run or comparison, as CI servers read test results: one test case per gate (failed when the
/// gate failed, with the observed figure), per seed claim (failed when contrary or equivalent, skipped when inconclusive), per
/// verdict (passing: a change is a finding, not a test; failed when it is worse and a gate read it) and per variant whose
/// runs failed or could not run by design (skipped, as "not applicable"). Times are the seconds measured: a case's
/// experiment or variant (with its baseline), a suite's experiments, the whole file's run.
/// </summary>
public static class JunitWriter
{
    public static void Write(CiSummary summary, TextWriter output)
    {
        var settings = new XmlWriterSettings { Indent = true, Encoding = new UTF8Encoding(false), NewLineChars = "\n" };
        using var xml = XmlWriter.Create(output, settings);
        xml.WriteStartDocument();
        var suites = Suites(summary);
        xml.WriteStartElement("testsuites");
        xml.WriteAttributeString("name", "perflab " + summary.Verb);
        WriteCounts(xml, suites.SelectMany(s => s.Cases).ToList(), SecondsOf(summary, suites.SelectMany(s => s.Cases)));
        foreach (var (name, cases) in suites)
        {
            xml.WriteStartElement("testsuite");
            xml.WriteAttributeString("name", $"perflab {summary.Verb}: {name}");
            WriteCounts(xml, cases, SecondsOf(summary, cases));
            foreach (var c in cases)
            {
                WriteCase(xml, summary, name, c);
            }
            xml.WriteEndElement();
        }
        xml.WriteEndElement();
        xml.WriteEndDocument();
    }

    private static List<(string Name, List<JunitCase> Cases)> Suites(CiSummary s) =>
    [
        ("gates", [.. s.Gates.Select(g => new JunitCase($"{g.Threshold} on {g.Scope}",
            g.Passed ? null : $"observed {g.Observed}: {g.Threshold} does not hold", null,
            $"gate {g.Threshold} on {g.Scope}: observed {g.Observed}, {(g.Passed ? "pass" : "FAIL")}")
        {
            Measured = g.Reads.Count > 0
                ? [.. g.Reads.Select(r => r[..r.IndexOf(" / ", StringComparison.Ordinal)]).Distinct()]
                : [ScopeKey(s, g.Scope)],
        })]),
        ("claims", [.. s.Claims.Select(c => new JunitCase($"{c.Experiment}: {c.Claim}",
            c.Result is "contrary" or "equivalent" ? $"{c.Result}: ours {c.OurFigure}, seed {c.SeedFigure}" : null,
            c.Result == "inconclusive" ? $"inconclusive: {c.Note}" : null,
            $"seed: {c.SeedFigure}\nours: {c.OurFigure}\n{c.Result}: {c.Note}") { Measured = [c.Experiment] })]),
        ("verdicts", [.. s.Changes.Select(c => new JunitCase(
            $"{c.Experiment}: {c.Variant} vs {c.Against} ({c.Scenario} {c.Metric}{(c.Decides == true ? ", decides" : "")})",
            WorseAskedBy(s, c) is { Count: > 0 } gates
                ? $"worse: {c.Variant} {Fmt.Change(c.ChangePercent, c.LowPercent, c.HighPercent)} against {c.Against}, "
                    + $"read by {string.Join(", ", gates)}"
                : null,
            null, $"{Fmt.Change(c.ChangePercent, c.LowPercent, c.HighPercent)}: {c.Verdict}")
        {
            Measured = [$"{c.Experiment} / {c.Variant}", $"{c.Experiment} / {c.Against}"],
        })]),
        ("runs", [.. s.Problems.Select(p => new JunitCase(p.Variant.Length > 0 ? $"{p.Experiment}: {p.Variant}" : p.Kind,
            p.Kind is "failed" or "incomplete" ? $"{p.Kind}: {p.Reason}" : null,
            p.Kind is "failed" or "incomplete" ? null : $"{p.Kind}: {p.Reason}",
            string.Create(CultureInfo.InvariantCulture, $"{p.Runs} runs {p.Kind}: {p.Reason}"))
        {
            Measured = [p.Variant.Length > 0 ? $"{p.Experiment} / {p.Variant}" : p.Experiment],
        })]),
    ];

    /// <summary>The gates that read a worse verdict's comparison (none when it is not worse): it fails with them.</summary>
    private static List<string> WorseAskedBy(CiSummary s, CiChange c)
    {
        if (c.Verdict != Fmt.Verdict(Results.Verdict.Worse))
        {
            return [];
        }
        var key = Results.GatedChange.ReadsOf(c.Experiment, c.Variant, c.Scenario, c.Metric);
        return [.. s.Gates.Where(g => g.Reads.Contains(key)).Select(g => g.Threshold).Distinct()];
    }

    /// <summary>"api / b / s" → "api / b" when that variant was measured, else "api": what an absolute gate's time is.</summary>
    private static string ScopeKey(CiSummary s, string scope)
    {
        var parts = scope.Split([" / ", ": "], StringSplitOptions.None);
        return parts.Length > 1 && s.MeasuredSeconds.ContainsKey($"{parts[0]} / {parts[1]}") ? $"{parts[0]} / {parts[1]}" : parts[0];
    }

    /// <summary>The seconds measured for what the cases cover, each experiment or variant counted once.</summary>
    private static double SecondsOf(CiSummary s, IEnumerable<JunitCase> cases)
    {
        var keys = cases.SelectMany(c => c.Measured).ToHashSet(StringComparer.Ordinal);
        // An experiment covered whole needs none of its variants counted again.
        keys.RemoveWhere(k => k.IndexOf(" / ", StringComparison.Ordinal) is var at and > 0 && keys.Contains(k[..at]));
        return keys.Sum(s.SecondsOf);
    }

    private static void WriteCounts(XmlWriter xml, IReadOnlyCollection<JunitCase> cases, double seconds)
    {
        xml.WriteAttributeString("tests", cases.Count.ToString(CultureInfo.InvariantCulture));
        xml.WriteAttributeString("failures", cases.Count(c => c.Failure is not null).ToString(CultureInfo.InvariantCulture));
        xml.WriteAttributeString("errors", "0");
        xml.WriteAttributeString("skipped", cases.Count(c => c.Skipped is not null).ToString(CultureInfo.InvariantCulture));
        xml.WriteAttributeString("time", Seconds(seconds));
    }

    private static string Seconds(double seconds) => seconds.ToString("0.###", CultureInfo.InvariantCulture);

    private static void WriteCase(XmlWriter xml, CiSummary summary, string suite, JunitCase c)
    {
        xml.WriteStartElement("testcase");
        xml.WriteAttributeString("classname", "perflab." + suite);
        xml.WriteAttributeString("name", c.Name);
        xml.WriteAttributeString("time", Seconds(SecondsOf(summary, [c])));
        if (c.Failure is { } failure)
        {
            xml.WriteStartElement("failure");
            xml.WriteAttributeString("message", failure);
            xml.WriteAttributeString("type", suite);
            xml.WriteString(c.Details);
            xml.WriteEndElement();
        }
        else if (c.Skipped is { } skipped)
        {
            xml.WriteStartElement("skipped");
            xml.WriteAttributeString("message", skipped);
            xml.WriteEndElement();
        }
        xml.WriteElementString("system-out", c.Details);
        xml.WriteEndElement();
    }

    private sealed record JunitCase(string Name, string? Failure, string? Skipped, string Details)
    {
        /// <summary>What it measured: experiments or "experiment / variant" keys of <see cref="CiSummary.MeasuredSeconds"/>.</summary>
        public IReadOnlyList<string> Measured { get; init; } = [];
    }
}
