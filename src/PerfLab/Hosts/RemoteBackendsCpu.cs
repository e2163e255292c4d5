using PerfLab.Database;

namespace PerfLab.Hosts;

/// <summary>
/// The backends serving the app, read by the db role on its host (<c>backends-cpu</c>, answered with each one's CPU
/// clock: one round trip, at most 2 s, at each window edge). The role has picked them by the client address in their
/// process titles (the app host's), so every backend it sends serves the app.
/// </summary>
internal sealed class RemoteBackendsCpu(RoleSession session) : IBackendsCpu
{
    public const string Request = "backends-cpu";

    private static readonly TimeSpan AnswerTimeout = TimeSpan.FromSeconds(2);

    public IReadOnlyDictionary<int, long>? Read() =>
        session.Ask(Request, AnswerTimeout) is { } answer ? BackendsCpu.Parse(answer) : null;

    public IReadOnlySet<int> Serving(IEnumerable<int> candidates) => candidates.ToHashSet();

    /// <summary>
    /// The db role's answer to <paramref name="ask"/> (a <see cref="Request"/>): the backends of
    /// <paramref name="postmasterPid"/> serving <paramref name="app"/>.
    /// </summary>
    public static void Answer(RoleLines lines, RoleAsk ask, int postmasterPid, System.Net.IPAddress app) =>
        lines.Answer(ask, BackendsCpu.Format(BackendsCpu.Of(PostgresBackends.ServingClient(postmasterPid, app))));
}
