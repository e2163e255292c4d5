using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// One output format of a run. Writers only render the result graph: every figure, interval and verdict comes from
/// the runner, so the Markdown, the HTML and a re-rendered report always agree.
/// </summary>
public interface IReportWriter
{
    /// <summary>The name used by <c>--format</c>: md, html or json.</summary>
    string Format { get; }

    /// <summary>The file this writer produces inside a result folder.</summary>
    string FileName { get; }

    void Write(RunResults results, TextWriter output);
}
