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

    /// <summary>Three blocks of a sweep, each block's throughput scaled by its own factor (a slow block) and 1 % noise.</summary>
    private static List<UslFit.Sample> Blocks(double sigma, double kappa, int seed) =>
    [
        .. new[] { 0.8, 1.0, 1.15 }.SelectMany((scale, b) => Synthetic(100 * scale, sigma, kappa, 0.01, seed + b)
            .Select(p => new UslFit.Sample(p.Users, p.Rps, b + 1))),
    ];

    [Fact]
    public void Compare_HalfTheContentionInInterleavedBlocks_SeparatesSigmaPairedAndNotKappa()
    {
        var comparison = UslFit.Compare("relieved", "locked", Blocks(0.05, 0.0002, 20), Blocks(0.10, 0.0002, 30))!;

        Assert.Equal(3, comparison.Blocks);
        Assert.InRange(-0.05, comparison.Sigma.Low, comparison.Sigma.High);
        Assert.True(ScalabilityComparison.Apart(comparison.Sigma), $"σ difference {comparison.Sigma}");
        Assert.InRange(0, comparison.Kappa.Low, comparison.Kappa.High);
        // N* = √((1−σ)/κ): 68.9 against 67.1 users, the peak moves out with less contention.
        Assert.InRange(comparison.PeakUsers!.Value, -2, 6);
        var line = ScalabilityContent.Comparison(comparison);
        Assert.StartsWith("relieved against locked, paired by block (3): σ −0.0", line, StringComparison.Ordinal);
        Assert.Contains(": apart on σ", line, StringComparison.Ordinal);
    }

    [Fact]
    public void Fit_StalledBlocksOfABusyMachine_FitsWithoutThrowing()
    {
        // sync-async-scaling's quick profile at load average 50-95 on 2 cores (orders: RPS per block at 1, 4, 16 and 32
        // users, as logged): the jackknife's fits once walked the minimizer to non-finite parameters and ended the run.
        double[][] rps = [[0.3, 2.7, 4.0], [9.6, 17.9, 12.6], [10.9, 13.0, 11.6], [2.3, 15.2, 20.9]];
        double[][] async = [[0.2, 7.0, 0.04], [15.2, 20.9, 8.3], [19.2, 14.2, 9.6], [1.8, 2.3, 24.5]];
        List<UslFit.Sample> Samples(double[][] x) =>
            [.. x.SelectMany((blocks, i) => blocks.Select((r, b) => new UslFit.Sample(new[] { 1, 4, 16, 32 }[i], r, b + 1)))];

        var fits = new[] { UslFit.Fit("sync", Samples(rps)), UslFit.Fit("async", Samples(async)) };
        var comparison = UslFit.Compare("async", "sync", Samples(async), Samples(rps));

        Assert.All(fits, f => Assert.True(f is not null && double.IsFinite(f.Sigma.Value) && double.IsFinite(f.Lambda.Value)));
        Assert.True(comparison is not null && double.IsFinite(comparison.Sigma.Value), $"{comparison}");
    }

    [Fact]
    public void Compare_FewerThanThreeBlocksInCommon_IsNull()
    {
        var two = Blocks(0.05, 0.0002, 20).Where(p => p.Block <= 2).ToList();

        Assert.Null(UslFit.Compare("a", "b", two, Blocks(0.10, 0.0002, 30)));
    }

    [Fact]
    public void Fit_TwoTimesLessContention_SaysSoInSigma()
    {
        var locked = UslFit.Fit("locked", Synthetic(100, 0.10, 0.0002, 0.01))!;
        var relieved = UslFit.Fit("relieved", Synthetic(100, 0.05, 0.0002, 0.01, seed: 8))!;

        Assert.True(relieved.Sigma.High < locked.Sigma.Low, $"{relieved.Sigma} vs {locked.Sigma}");
    }

    [Fact]
    public void Fit_ThroughputRisingFasterThanLinear_HoldsSigmaAndKappaAtZeroNotBelow()
    {
        // A free fit of these would need κ < 0 (throughput bending upwards); the law has no such term.
        var fit = UslFit.Fit("v", [(1, 100), (2, 201), (4, 405), (8, 820), (16, 1_700)])!;

        Assert.Equal(0, fit.Kappa.Value);
        Assert.True(fit.Sigma.Value >= 0, $"σ {fit.Sigma}");
        Assert.True(fit.Kappa.Low >= 0 && fit.Sigma.Low >= 0);
        Assert.Null(fit.PeakUsers);
    }

    [Fact]
    public void Fit_ThreeBlocksEachScaledByItsOwnDrift_IntervalsFromTheBlocksSpreadHoldTheTruth()
    {
        // Each block's machine runs 3 % faster or slower throughout: every point of a block moves together, which is
        // what the blocks' spread sees and the scatter around one curve does not.
        var samples = new[] { 0.97, 1.0, 1.03 }.SelectMany((drift, b) => Synthetic(100, 0.08, 0.001, 0.01, seed: b)
            .Select(p => new UslFit.Sample(p.Users, p.Rps * drift, b + 1))).ToList();

        var fit = UslFit.Fit("v", samples)!;

        Assert.Equal(3, fit.Blocks);
        Assert.Contains("jackknife", fit.IntervalsFrom);
        Assert.Equal(3 * Users.Length, fit.Points.Count);
        Assert.InRange(0.08, fit.Sigma.Low, fit.Sigma.High);
        Assert.InRange(0.001, fit.Kappa.Low, fit.Kappa.High);
        Assert.InRange(100, fit.Lambda.Low, fit.Lambda.High);
        var peak = fit.PeakUsers!;   // √(0.92/0.001) ≈ 30.3 users
        Assert.InRange(Math.Sqrt(0.92 / 0.001), peak.Low, peak.High);
        Assert.True(fit.PeakRps!.Low < fit.PeakRps.Value && fit.PeakRps.Value < fit.PeakRps.High, $"{fit.PeakRps}");
    }

    /// <summary>Three blocks of a 1-32 users sweep of the law, each point off by its own ±<paramref name="noise"/> share.</summary>
    private static List<UslFit.Sample> Scattered(double sigma, double kappa, double noise, int seed)
    {
        var random = new Random(seed);
        return [.. new[] { 1.0, 2, 4, 8, 16, 32 }.SelectMany(n => Enumerable.Range(1, 3).Select(b => new UslFit.Sample(n,
            100 * n / (1 + (sigma * (n - 1)) + (kappa * n * (n - 1))) * (1 + (noise * ((2 * random.NextDouble()) - 1))), b)))];
    }

    [Fact]
    public void Fit_EveryPointOffByTheSameShare_RelativeErrorRecoversSigmaAndKappa()
    {
        // σ 0.05, κ 0.0005: 100 RPS at 1 user, 1,580 at 32 (16 times), every point ±10 %. On absolute error the 32-user
        // points, off by up to ±158 RPS, decided the fit: over these 20 seeded sweeps the previous fit's σ was off by
        // 0.0124 RMS (up to 0.024) and its κ by 0.00033 RMS; on relative error every point weighs the same.
        var fits = Enumerable.Range(1, 20).Select(seed => UslFit.Fit("v", Scattered(0.05, 0.0005, 0.10, seed))!).ToList();

        var sigma = Math.Sqrt(fits.Average(f => Math.Pow(f.Sigma.Value - 0.05, 2)));
        var kappa = Math.Sqrt(fits.Average(f => Math.Pow(f.Kappa.Value - 0.0005, 2)));
        Assert.True(sigma < 0.009, $"σ off by {sigma} RMS");    // 0.0072 here
        Assert.True(kappa < 0.0003, $"κ off by {kappa} RMS");   // 0.00026 here
    }

    [Fact]
    public void Fit_ThroughputFallingFromTheSecondUser_HoldsSigmaAtOne()
    {
        // X = λN/(1 + 1.5(N−1)): every added user lowers throughput from the first, as scattered points of a busy
        // machine can; the free fit takes σ to 1.5 (the previous fit: 1.51 [1.45, 1.56]), which is no share of the work.
        var fit = UslFit.Fit("v", Scattered(1.5, 0, 0.02, seed: 3))!;

        Assert.Equal(new FitParameter(1, 1, 1), fit.Sigma);   // held at 1 in every block's jackknife fit too
        Assert.True(fit.Kappa.Value > 0 && fit.Kappa.Low >= 0, $"κ {fit.Kappa}");
        // σ = 1 has no peak: the ceiling λ/σ is λ itself.
        Assert.Null(fit.PeakUsers);
        Assert.Equal(fit.Lambda.Value, fit.PeakRps!.Value, 6);
    }

    [Fact]
    public void Fit_ContentionNearOneOnScatteredPoints_ClipsItsIntervalAtOne()
    {
        // σ 0.9, every point ±20 %: the fit lies inside the range, its jackknife interval reaches past it (the previous
        // fit: 0.93 [0.44, 1.41]) and is clipped, as a lower end is at zero.
        var fit = UslFit.Fit("v", Scattered(0.9, 0, 0.20, seed: 3))!;

        Assert.InRange(fit.Sigma.Value, 0.5, 0.99);
        Assert.Equal(1, fit.Sigma.High);
        Assert.InRange(fit.Sigma.Low, 0, fit.Sigma.Value);
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
        Assert.Contains("- async: contention: 5", md.ToString());
        Assert.Contains("% of each request's work waits on something shared", md.ToString());
        Assert.Contains("throughput peaks at 4", md.ToString());
        Assert.Contains("| variant | λ RPS/user | σ [95 % CI] | κ [95 % CI] | N* users [95 % CI] | peak RPS [95 % CI] | R² | blocks |",
            md.ToString());
        Assert.Contains("| variant | users | measured RPS (median of blocks) | fitted RPS | residual |", md.ToString());
        Assert.Contains("<svg class=\"usl\"", html);
        Assert.Equal(Users.Length, html.Split("<circle ").Length - 1);
    }
}
