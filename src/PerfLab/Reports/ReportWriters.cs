using System.Text;
using PerfLab.Common;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>The report writers perflab knows, and writing them into a result folder.</summary>
public static class ReportWriters
{
    public static IReadOnlyList<IReportWriter> All { get; } =
        [new JsonReportWriter(), new MarkdownReportWriter(), new HtmlReportWriter()];

    /// <summary>The writers named in a comma-separated list such as "md,html" (in the order <see cref="All"/> gives).</summary>
    public static IReadOnlyList<IReportWriter> ForFormats(string formats)
    {
        var names = formats.Split([',', ' '], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Select(n => n.ToLowerInvariant())
            .ToHashSet();
        if (names.Count == 0)
        {
            throw new PerfLabException($"no report format given; choose from {Known}.", ExitCode.Usage);
        }
        var unknown = names.Where(n => All.All(w => w.Format != n)).ToList();
        if (unknown.Count > 0)
        {
            throw new PerfLabException($"unknown report format '{string.Join("', '", unknown)}'; choose from {Known}.", ExitCode.Usage);
        }
        return All.Where(w => names.Contains(w.Format)).ToList();
    }

    /// <summary>
    /// Writes each writer's file into <paramref name="directory"/> (created if missing), then the files it links to
    /// (report.md's charts, in their own folder), and returns the paths written. Each file is written beside its final
    /// name and then moved, so an interrupted write never leaves half a report.
    /// </summary>
    public static IReadOnlyList<string> WriteAll(RunResults results, string directory, IEnumerable<IReportWriter>? writers = null)
    {
        Directory.CreateDirectory(directory);
        var written = new List<string>();
        var chosen = (writers ?? All).ToList();
        foreach (var writer in chosen)
        {
            var path = Path.Combine(directory, writer.FileName);
            WriteFile(path, output => writer.Write(results, output));
            written.Add(path);
            foreach (var file in writer.Companions(results))
            {
                var companion = Path.Combine(directory, file.RelativePath);
                Directory.CreateDirectory(Path.GetDirectoryName(companion)!);
                WriteFile(companion, output => output.Write(file.Content));
                written.Add(companion);
            }
        }
        // Each capacity experiment's latency-against-rate curve as a file of its own, which report.md shows.
        foreach (var experiment in chosen.Any(w => w is MarkdownReportWriter) ? results.Experiments.Where(CapacityContent.HasCapacity) : [])
        {
            var path = Path.Combine(directory, CapacityContent.ChartFile(experiment));
            WriteFile(path, output => output.Write(CapacityContent.ChartDocument(experiment)));
            written.Add(path);
        }
        return written;
    }

    internal static void WriteFile(string path, Action<TextWriter> write)
    {
        var temp = path + ".tmp";
        try
        {
            using (var output = new StreamWriter(temp, append: false, new UTF8Encoding(encoderShouldEmitUTF8Identifier: false)))
            {
                // Reports are compared byte for byte (golden files, diffs between runs): the same newline everywhere.
                output.NewLine = "\n";
                write(output);
            }
            File.Move(temp, path, overwrite: true);
        }
        finally
        {
            File.Delete(temp);
        }
    }

    private static string Known => string.Join(", ", All.Select(w => w.Format));
}
