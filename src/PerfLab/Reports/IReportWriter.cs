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

    /// <summary>Files the report links to, written beside it (report.md's charts); none by default.</summary>
    IReadOnlyList<ReportFile> Companions(RunResults results) => [];
}

/// <summary>A file a report links to, by its path relative to the result folder ("charts/serializer-change.svg").</summary>
public sealed record ReportFile(string RelativePath, string Content);
