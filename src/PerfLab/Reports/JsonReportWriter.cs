using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>results.json: every raw figure and timeline, with its schema version.</summary>
public sealed class JsonReportWriter : IReportWriter
{
    public string Format => "json";

    public string FileName => ResultsJson.FileName;

    public void Write(RunResults results, TextWriter output)
    {
        // The notes are derived text: written as today's perflab words them, like the other reports.
        var current = results with { Notes = ReportContent.CeilingNotes(results.Experiments) };
        output.Write(ResultsJson.Serialize(current).ReplaceLineEndings("\n"));
        output.Write('\n');
    }
}
