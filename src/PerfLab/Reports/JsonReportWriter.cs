using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>results.json: every raw figure and timeline, with its schema version.</summary>
public sealed class JsonReportWriter : IReportWriter
{
    public string Format => "json";

    public string FileName => ResultsJson.FileName;

    public void Write(RunResults results, TextWriter output)
    {
        output.Write(ResultsJson.Serialize(results).ReplaceLineEndings("\n"));
        output.Write('\n');
    }
}
