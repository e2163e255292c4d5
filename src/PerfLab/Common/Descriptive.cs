namespace PerfLab.Common;

/// <summary>Median and sample standard deviation, shared by the analysis and the report writers.</summary>
public static class Descriptive
{
    public static double Median(IReadOnlyList<double> values)
    {
        if (values.Count == 0)
        {
            return double.NaN;
        }
        var sorted = values.Order().ToArray();
        var mid = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    public static double StdDev(IReadOnlyList<double> values) => Math.Sqrt(Variance(values));

    public static double Variance(IReadOnlyList<double> values)
    {
        if (values.Count < 2)
        {
            return 0;
        }
        var mean = values.Average();
        return values.Sum(v => (v - mean) * (v - mean)) / (values.Count - 1);
    }
}
