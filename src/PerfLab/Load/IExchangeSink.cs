using System.Runtime.ExceptionServices;

namespace PerfLab.Load;

/// <summary>
/// Where an exchange on an <see cref="Http11Connection"/> reports its end, on the thread that completed it, from
/// inside the connection's one asynchronous method: the caller's bookkeeping (a request recorded, say) runs there,
/// without an asynchronous method of the caller's awaiting the connection's. A struct, so the call is direct.
/// </summary>
internal interface IExchangeSink<TResult>
{
    /// <summary>The whole response arrived; the connection's <see cref="Http11Connection.Body"/> is valid until its next send.</summary>
    TResult Responded(Http11Connection connection, Http11Response response);

    /// <summary>
    /// The exchange failed with a <see cref="System.Net.Sockets.SocketException"/>, <see cref="IOException"/>,
    /// <see cref="ObjectDisposedException"/> or <see cref="OperationCanceledException"/>;
    /// <see cref="Http11Connection.TimedOut"/> tells a timeout apart.
    /// </summary>
    TResult Failed(Http11Connection connection, Exception failure);

    /// <summary>
    /// After an exchange that ended in <paramref name="last"/>: whether another follows on the same connection at once,
    /// and its bytes and send time (the timeout counts from it).
    /// </summary>
    bool TryNext(TResult last, out ReadOnlyMemory<byte> request, out long sentAt);
}

/// <summary>
/// The sink of <see cref="Http11Connection.SendAsync(ReadOnlyMemory{byte}, long)"/>: the response, or the failure thrown.
/// </summary>
internal readonly struct ResponseOrThrow : IExchangeSink<Http11Response>
{
    public Http11Response Responded(Http11Connection connection, Http11Response response) => response;

    public Http11Response Failed(Http11Connection connection, Exception failure)
    {
        ExceptionDispatchInfo.Throw(failure);
        return default;
    }

    public bool TryNext(Http11Response last, out ReadOnlyMemory<byte> request, out long sentAt)
    {
        request = default;
        sentAt = 0;
        return false;
    }
}
