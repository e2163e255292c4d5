namespace PerfLab.Load;

/// <summary>Student's t quantiles, for the confidence interval BenchmarkDotNet prints as "Error".</summary>
internal static class StudentT
{
    /// <summary>The t such that P(T ≤ t) = <paramref name="p"/> for <paramref name="df"/> degrees of freedom (p in (0.5, 1)).</summary>
    public static double InverseCdf(double p, double df)
    {
        double lo = 0, hi = 1;
        while (Cdf(hi, df) < p)
        {
            hi *= 2;
            if (hi > 1e7)
            {
                return double.PositiveInfinity;
            }
        }
        for (var i = 0; i < 200 && hi - lo > 1e-12 * hi; i++)
        {
            var mid = (lo + hi) / 2;
            if (Cdf(mid, df) < p)
            {
                lo = mid;
            }
            else
            {
                hi = mid;
            }
        }
        return (lo + hi) / 2;
    }

    public static double Cdf(double t, double df)
    {
        var x = df / (df + (t * t));
        var tail = 0.5 * RegularizedIncompleteBeta(df / 2, 0.5, x);
        return t >= 0 ? 1 - tail : tail;
    }

    /// <summary>Half-width of the two-sided <paramref name="confidence"/> interval of the mean of <paramref name="values"/>.</summary>
    public static double? MarginOfError(IReadOnlyList<double> values, double confidence)
    {
        if (values.Count < 2)
        {
            return null;
        }
        var standardError = StdDev(values) / Math.Sqrt(values.Count);
        return InverseCdf(1 - ((1 - confidence) / 2), values.Count - 1) * standardError;
    }

    /// <summary>Sample standard deviation (n − 1), as BenchmarkDotNet reports it.</summary>
    public static double StdDev(IReadOnlyList<double> values)
    {
        if (values.Count < 2)
        {
            return 0;
        }
        var mean = values.Average();
        var squares = values.Sum(v => (v - mean) * (v - mean));
        return Math.Sqrt(squares / (values.Count - 1));
    }

    private static double RegularizedIncompleteBeta(double a, double b, double x)
    {
        if (x <= 0)
        {
            return 0;
        }
        if (x >= 1)
        {
            return 1;
        }
        var front = Math.Exp(LogGamma(a + b) - LogGamma(a) - LogGamma(b) + (a * Math.Log(x)) + (b * Math.Log(1 - x)));
        // The continued fraction converges fast only below the mean of the distribution; use the symmetry otherwise.
        return x < (a + 1) / (a + b + 2)
            ? front * BetaContinuedFraction(a, b, x) / a
            : 1 - (front * BetaContinuedFraction(b, a, 1 - x) / b);
    }

    // Modified Lentz evaluation of the continued fraction for the incomplete beta function.
    private static double BetaContinuedFraction(double a, double b, double x)
    {
        const double Tiny = 1e-300;
        double c = 1, d = 1 - ((a + b) * x / (a + 1));
        d = Math.Abs(d) < Tiny ? Tiny : d;
        d = 1 / d;
        var result = d;
        for (var m = 1; m <= 500; m++)
        {
            var m2 = 2 * m;
            var numerator = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
            d = 1 + (numerator * d);
            d = Math.Abs(d) < Tiny ? Tiny : d;
            c = 1 + (numerator / c);
            c = Math.Abs(c) < Tiny ? Tiny : c;
            d = 1 / d;
            result *= d * c;
            numerator = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
            d = 1 + (numerator * d);
            d = Math.Abs(d) < Tiny ? Tiny : d;
            c = 1 + (numerator / c);
            c = Math.Abs(c) < Tiny ? Tiny : c;
            d = 1 / d;
            var delta = d * c;
            result *= delta;
            if (Math.Abs(delta - 1) < 1e-15)
            {
                break;
            }
        }
        return result;
    }

    // Lanczos approximation (g = 7, n = 9), accurate to about 15 digits for positive arguments.
    private static readonly double[] s_lanczos =
    [
        0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
        12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
    ];

    private static double LogGamma(double x)
    {
        if (x < 0.5)
        {
            return Math.Log(Math.PI / Math.Abs(Math.Sin(Math.PI * x))) - LogGamma(1 - x);
        }
        x -= 1;
        var sum = s_lanczos[0];
        for (var i = 1; i < s_lanczos.Length; i++)
        {
            sum += s_lanczos[i] / (x + i);
        }
        var t = x + 7.5;
        return (0.5 * Math.Log(2 * Math.PI)) + ((x + 0.5) * Math.Log(t)) - t + Math.Log(sum);
    }
}
