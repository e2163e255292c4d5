using PerfLab.Reports;

namespace PerfLab.Experiments;

/// <summary>Writes a run's three outputs (results.json, report.md, report.html) into its folder.</summary>
public static class RunOutput
{
    public static IReadOnlyList<string> Write(RunResults results, string folder) => ReportWriters.WriteAll(results, folder);
}
