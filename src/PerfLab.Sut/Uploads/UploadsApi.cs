using System.Buffers;
using System.Diagnostics;
using Microsoft.AspNetCore.Http.Features;

namespace PerfLab.Sut.Uploads;

/// <summary>
/// Seed 002's HTTP/2 flow-control case: reads a request body to the end and says how long it took. The client's
/// upload speed is bounded by the receive windows this server advertises (Kestrel's Http2 limits).
/// </summary>
public static class UploadsApi
{
    public static IEndpointRouteBuilder MapUploads(this IEndpointRouteBuilder app)
    {
        app.MapPost("/upload", async (HttpContext context) =>
        {
            if (context.Features.Get<IHttpMaxRequestBodySizeFeature>() is { IsReadOnly: false } limit)
            {
                limit.MaxRequestBodySize = null;
            }
            var clock = Stopwatch.StartNew();
            var buffer = ArrayPool<byte>.Shared.Rent(64 * 1024);
            long length = 0;
            try
            {
                int read;
                while ((read = await context.Request.Body.ReadAsync(buffer, context.RequestAborted)) > 0)
                {
                    length += read;
                }
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
            return TypedResults.Ok(new UploadResult(length, clock.Elapsed.TotalMilliseconds, context.Request.Protocol));
        });
        return app;
    }
}

public sealed record UploadResult(long Bytes, double Milliseconds, string Protocol);
