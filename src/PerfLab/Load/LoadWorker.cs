namespace PerfLab.Load;

/// <summary>
/// One user's reusable pieces: its HTTP/1.1 connection, or else a body buffer and a timeout source for HttpClient;
/// a random stream. Nothing per request.
/// </summary>
internal sealed class LoadWorker
{
    public readonly int Index;
    public readonly Random Random;
    public readonly Http11Connection? Connection;
    public readonly byte[] Buffer = [];
    /// <summary>
    /// Where this user's requests are written when their body
    /// varies (<see cref="RequestTemplate"/>); grown once, reused.
    /// </summary>
    public byte[] Scratch = [];
    public CancellationTokenSource? Timeout;

    public LoadWorker(int index, ScenarioRun run)
        : this(index, run.Plan.Feed.Seed, run.OpenConnection(), run.Stop)
    {
    }

    /// <summary>
    /// The seed of user <paramref name="index"/>'s random stream: the same in every process, so that <c>--seed</c> (and an
    /// experiment's feed) picks the same values in every invocation. HashCode.Combine, used before, is salted per process.
    /// </summary>
    internal static int StreamSeed(int seed, int index) => unchecked((seed * 1_000_003) + index);

    /// <summary>A user on <paramref name="connection"/>, or through HttpClient when it is null.</summary>
    public LoadWorker(int index, int seed, Http11Connection? connection, CancellationToken stop)
    {
        Index = index;
        Random = new Random(StreamSeed(seed, index));
        Connection = connection;
        if (Connection is null)
        {
            Buffer = new byte[16 * 1024];
            Timeout = CancellationTokenSource.CreateLinkedTokenSource(stop);
        }
    }
}
