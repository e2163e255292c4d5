namespace PerfLab.Common;

/// <summary>The confidence interval BenchmarkDotNet prints as "Error", from Student's t (MathNet.Numerics).</summary>
internal static class StudentT
{
    /// <summary>The t such that P(T ≤ t) = <paramref name="p"/> for <paramref name="df"/> degrees of freedom.</summary>
    public static double InverseCdf(double p, double df) => MathNet.Numerics.Distributions.StudentT.InvCDF(0, 1, df, p);

    /// <summary>Half-width of the two-sided <paramref name="confidence"/> interval of the mean; null below two values.</summary>
    public static double? MarginOfError(IReadOnlyList<double> values, double confidence) =>
        values.Count < 2 ? null : InverseCdf(1 - (1 - confidence) / 2, values.Count - 1) * StdDev(values) / Math.Sqrt(values.Count);

    /// <summary>Sample standard deviation (n - 1).</summary>
    public static double StdDev(IReadOnlyList<double> values) => Descriptive.StdDev(values);
}
