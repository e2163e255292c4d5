using PerfLab.Experiments.Analysis;
using PerfLab.Load;
using PerfLab.SutProcesses;
using Xunit.Abstractions;

namespace PerfLab.Tests.Experiments.Capacity;

/// <summary>
/// The Universal Scalability Law fitted to a real users sweep of the SUT's contention endpoint, whose σ is set by the
/// request (a lock held for σ·T = 12 ms of each request's T = 40 ms, the rest awaited): the fit must find it. Three interleaved
/// blocks of five points of 1 s (about 20 s in all) so the intervals come from the blocks' spread. It runs alone: the
/// generator starved by the suite's other classes answers late, and a cycle longer than T is a σ read too low.
/// </summary>
[Collection(QuietCollection.Name)]
public sealed class UslKnownAnswerTests(ITestOutputHelper output)
{
    private const double SetSigma = 0.3;
    private static readonly int[] Users = [1, 2, 4, 6, 8];

    private static LoadPlan Plan(string url, int users, TimeSpan duration) =>
        new([new ScenarioPlan("contention", new ClosedModel(users), new RequestFeed(url))], duration, TimeSpan.FromSeconds(0.25),
            TimeSpan.FromSeconds(10));

    [Fact]
    public async Task Fit_ContentionEndpointSweep_FindsTheSetSigmaWithin25Percent()
    {
        await using var sut = await SutProcess.StartAsync(SutLaunch.Default(connectionString: null) with
        {
            LogFile = Path.Combine(TestCaches.NewFolder(), "sut.log"),
        });
        var url = new Uri(sut.BaseAddress, FormattableString.Invariant($"/diagnostics/contention?ms=40&sigma={SetSigma}")).ToString();

        // Both sides' first requests (JIT, connections) outside the sweep.
        await LoadEngine.RunAsync(Plan(url, Users[^1], TimeSpan.FromSeconds(1.5)));
        var samples = new List<UslFit.Sample>();
        for (var block = 1; block <= 3; block++)
        {
            // Ascending, then descending: a drift of the machine over the sweep does not bend the curve one way.
            foreach (var users in block % 2 == 1 ? Users : Users.Reverse())
            {
                var result = await LoadEngine.RunAsync(Plan(url, users, TimeSpan.FromSeconds(1)));
                var scenario = Assert.Single(result.Scenarios);
                Assert.Equal(0, scenario.Errors.Total);
                samples.Add(new UslFit.Sample(users, scenario.RequestsPerSecond, block));
            }
        }

        var fit = UslFit.Fit("contention", samples)!;
        var seen = string.Join(", ", samples.Select(s => FormattableString.Invariant($"{s.Users}:{s.Rps:0.#}")));
        output.WriteLine(FormattableString.Invariant($"σ {fit.Sigma}, κ {fit.Kappa}, λ {fit.Lambda}; points {seen}"));
        Assert.True(Math.Abs(fit.Sigma.Value - SetSigma) <= 0.25 * SetSigma, $"σ {fit.Sigma} for {SetSigma}; points {seen}");
        // No coherency was set: κ stays near zero (κ = 0.01 would already cut throughput at 8 users by a sixth).
        Assert.InRange(fit.Kappa.Value, 0, 0.01);
        Assert.Equal(3, fit.Blocks);
        Assert.Contains("jackknife", fit.IntervalsFrom);
        Assert.True(fit.Sigma.Low <= fit.Sigma.Value && fit.Sigma.Value <= fit.Sigma.High);
        // λ is one user's throughput, 1000/40 = 25 RPS, less what the client's own time on a loaded machine exceeds 28 ms by.
        Assert.InRange(fit.Lambda.Value, 15, 26);
    }
}
