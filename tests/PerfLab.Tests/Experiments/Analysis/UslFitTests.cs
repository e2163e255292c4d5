using PerfLab.Experiments.Analysis;
using PerfLab.Reports;
using PerfLab.Results;
using PerfLab.Tests.Reports;

namespace PerfLab.Tests.Experiments.Analysis;

/// <summary>The Universal Scalability Law fit on synthetic sweeps whose λ, σ and κ are known, with seeded noise.</summary>
public sealed class UslFitTests
{
    private static readonly double[] Users = [1, 2, 4, 8, 16, 24, 32, 48, 64, 96];

    /// <summary>X(N) of the law with ±<paramref name="noise"/> relative scatter, drawn from a fixed seed.</summary>
    private static List<(double Users, double Rps)> Synthetic(double lambda, double sigma, double kappa, double noise, int seed = 7)
    {
        var random = new Random(seed);
        return [.. Users.Select(n => (n, lambda * n / (1 + (sigma * (n - 1)) + (kappa * n * (n - 1))) * (1 + (noise * ((2 * random.NextDouble()) - 1)))))];
    }

    [Fact]
    public void Fit_KnownContentionAndCoherency_RecoversThemWithinTheirIntervals()
    {
        var fit = UslFit.Fit("v", Synthetic(lambda: 100, sigma: 0.05, kappa: 0.0005, noise: 0.02))!;

        Assert.InRange(0.05, fit.Sigma.Low, fit.Sigma.High);
        Assert.InRange(0.0005, fit.Kappa.Low, fit.Kappa.High);
        Assert.InRange(100, fit.Lambda.Low, fit.Lambda.High);
        // Close, not only inside a wide interval: 2 % noise on ten points.
        Assert.InRange(fit.Sigma.Value, 0.03, 0.07);
        Assert.InRange(fit.Kappa.Value, 0.0003, 0.0007);
        // N* = √((1−σ)/κ) = √(0.95/0.0005) ≈ 43.6 users.
        var peak = fit.PeakUsers!;
        Assert.InRange(Math.Sqrt(0.95 / 0.0005), peak.Low, peak.High);
        Assert.InRange(peak.Value, 38, 50);
        Assert.InRange(fit.PeakRps!.Value, 1_000, 1_150);   // X(43.6) = 4,360 / 4.06 ≈ 1,074
        Assert.True(fit.RSquared > 0.98, $"R² {fit.RSquared}");
        Assert.Equal(Users.Length, fit.Points.Count);
        Assert.All(fit.Points, p => Assert.InRange(p.ResidualPercent, -4, 4));
    }

    [Fact]
    public void Fit_LinearSystem_KappaNearZeroAndNoPeakWithinTheRange()
    {
        var fit = UslFit.Fit("linear", Synthetic(lambda: 50, sigma: 0, kappa: 0, noise: 0.01))!;

        Assert.InRange(0, fit.Kappa.Low, fit.Kappa.High);
        Assert.InRange(Math.Abs(fit.Kappa.Value), 0, 2e-5);
        Assert.InRange(Math.Abs(fit.Sigma.Value), 0, 0.01);
        Assert.InRange(fit.Lambda.Value, 49, 51);
        Assert.True(fit.PeakUsers is null || fit.PeakUsers.Value > 5 * Users[^1], $"peak {fit.PeakUsers}");
    }

    [Fact]
    public void Fit_TwoTimesLessContention_SaysSoInSigma()
    {
        var locked = UslFit.Fit("locked", Synthetic(100, 0.10, 0.0002, 0.01))!;
        var relieved = UslFit.Fit("relieved", Synthetic(100, 0.05, 0.0002, 0.01, seed: 8))!;

        Assert.True(relieved.Sigma.High < locked.Sigma.Low, $"{relieved.Sigma} vs {locked.Sigma}");
    }

    [Fact]
    public void Fit_ThreePoints_IsNull()
    {
        Assert.Null(UslFit.Fit("v", [(1, 100), (2, 190), (4, 350)]));
    }

    [Fact]
    public void MarkdownAndHtml_UsersSweepWithAFit_ShowTheParametersResidualsAndTheCurve()
    {
        var fit = UslFit.Fit("async", Synthetic(100, 0.05, 0.0005, 0.02))!;
        var results = ReportFixtures.Sample() with
        {
            Sweeps = [SweepFixtures.Sweep() with { Condition = ConditionKind.Users, Values = [1, 2, 4, 8, 16], Scalability = [fit] }],
        };
        using var md = new StringWriter();
        new MarkdownReportWriter().Write(results, md);
        using var htmlWriter = new StringWriter();
        new HtmlReportWriter().Write(results, htmlWriter);
        var html = htmlWriter.ToString();

        Assert.Contains("#### Scalability (USL)", md.ToString());
        Assert.Contains("- async: λ = ", md.ToString());
        Assert.Contains("predicted peak at ", md.ToString());
        Assert.Contains("| variant | users | measured RPS | fitted RPS | residual |", md.ToString());
        Assert.Contains("<svg class=\"usl\"", html);
        Assert.Equal(Users.Length, html.Split("<circle ").Length - 1);
    }
}
