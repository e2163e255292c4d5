using System.Globalization;
using System.Text;
using System.Xml;

namespace PerfLab.Reports;

/// <summary>
/// A JUnit XML file of a run or comparison, as CI servers read test results: one test case per gate (failed when the
/// gate failed, with the observed figure), per seed claim (failed when contrary or equivalent, skipped when inconclusive), per
/// verdict (always passing: a change is a finding, not a test; gates turn it into one) and per variant whose runs
/// failed or could not run by design (skipped, as "not applicable").
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
        WriteCounts(xml, suites.SelectMany(s => s.Cases).ToList());
        foreach (var (name, cases) in suites)
        {
            xml.WriteStartElement("testsuite");
            xml.WriteAttributeString("name", $"perflab {summary.Verb}: {name}");
            WriteCounts(xml, cases);
            foreach (var c in cases)
            {
                WriteCase(xml, name, c);
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
            $"gate {g.Threshold} on {g.Scope}: observed {g.Observed}, {(g.Passed ? "pass" : "FAIL")}"))]),
        ("claims", [.. s.Claims.Select(c => new JunitCase($"{c.Experiment}: {c.Claim}",
            c.Result is "contrary" or "equivalent" ? $"{c.Result}: ours {c.OurFigure}, seed {c.SeedFigure}" : null,
            c.Result == "inconclusive" ? $"inconclusive: {c.Note}" : null,
            $"seed: {c.SeedFigure}\nours: {c.OurFigure}\n{c.Result}: {c.Note}"))]),
        ("verdicts", [.. s.Changes.Select(c => new JunitCase(
            $"{c.Experiment}: {c.Variant} vs {c.Against} ({c.Scenario} {c.Metric}{(c.Decides == true ? ", decides" : "")})", null, null,
            $"{Fmt.Change(c.ChangePercent, c.LowPercent, c.HighPercent)}: {c.Verdict}"))]),
        ("runs", [.. s.Problems.Select(p => new JunitCase(p.Variant.Length > 0 ? $"{p.Experiment}: {p.Variant}" : p.Kind,
            p.Kind is "failed" or "incomplete" ? $"{p.Kind}: {p.Reason}" : null,
            p.Kind is "failed" or "incomplete" ? null : $"{p.Kind}: {p.Reason}",
            string.Create(CultureInfo.InvariantCulture, $"{p.Runs} runs {p.Kind}: {p.Reason}")))]),
    ];

    private static void WriteCounts(XmlWriter xml, IReadOnlyCollection<JunitCase> cases)
    {
        xml.WriteAttributeString("tests", cases.Count.ToString(CultureInfo.InvariantCulture));
        xml.WriteAttributeString("failures", cases.Count(c => c.Failure is not null).ToString(CultureInfo.InvariantCulture));
        xml.WriteAttributeString("errors", "0");
        xml.WriteAttributeString("skipped", cases.Count(c => c.Skipped is not null).ToString(CultureInfo.InvariantCulture));
        xml.WriteAttributeString("time", "0");
    }

    private static void WriteCase(XmlWriter xml, string suite, JunitCase c)
    {
        xml.WriteStartElement("testcase");
        xml.WriteAttributeString("classname", "perflab." + suite);
        xml.WriteAttributeString("name", c.Name);
        xml.WriteAttributeString("time", "0");
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

    private sealed record JunitCase(string Name, string? Failure, string? Skipped, string Details);
}
