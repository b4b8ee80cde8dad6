package lokijson

import "strconv"

// Stats fills the summary of Loki's stats object; every other field is
// written as Loki's zero value.
type Stats struct {
	ExecTime        float64 // seconds
	EntriesReturned int
	LinesProcessed  int
	BytesProcessed  int
}

func (s Stats) appendTo(b []byte) []byte {
	var bps, lps int64
	if s.ExecTime > 0 {
		bps = int64(float64(s.BytesProcessed) / s.ExecTime)
		lps = int64(float64(s.LinesProcessed) / s.ExecTime)
	}
	b = append(b, `{"summary":{"bytesProcessedPerSecond":`...)
	b = strconv.AppendInt(b, bps, 10)
	b = append(b, `,"linesProcessedPerSecond":`...)
	b = strconv.AppendInt(b, lps, 10)
	b = append(b, `,"totalBytesProcessed":`...)
	b = strconv.AppendInt(b, int64(s.BytesProcessed), 10)
	b = append(b, `,"totalLinesProcessed":`...)
	b = strconv.AppendInt(b, int64(s.LinesProcessed), 10)
	b = append(b, `,"execTime":`...)
	b = strconv.AppendFloat(b, s.ExecTime, 'f', -1, 64)
	b = append(b, `,"queueTime":0,"subqueries":0,"totalEntriesReturned":`...)
	b = strconv.AppendInt(b, int64(s.EntriesReturned), 10)
	b = append(b, `,"splits":0,"shards":0,"totalPostFilterLines":`...)
	b = strconv.AppendInt(b, int64(s.EntriesReturned), 10)
	b = append(b, `,"totalStructuredMetadataBytesProcessed":0},`...)
	return append(b, zeroStatsTail...)
}

const zeroStore = `{"totalChunksRef":0,"totalChunksDownloaded":0,"chunksDownloadTime":0,"queryReferencedStructuredMetadata":false,"queryUsedV2Engine":false,"chunk":{"headChunkBytes":0,"headChunkLines":0,"decompressedBytes":0,"decompressedLines":0,"compressedBytes":0,"totalDuplicates":0,"postFilterLines":0,"headChunkStructuredMetadataBytes":0,"decompressedStructuredMetadataBytes":0},"chunkRefsFetchTime":0,"congestionControlLatency":0,"pipelineWrapperFilteredLines":0,"dataobj":{"prePredicateDecompressedRows":0,"prePredicateDecompressedBytes":0,"prePredicateDecompressedStructuredMetadataBytes":0,"postPredicateRows":0,"postPredicateDecompressedBytes":0,"postPredicateStructuredMetadataBytes":0,"postFilterRows":0,"pagesScanned":0,"pagesDownloaded":0,"pagesDownloadedBytes":0,"pageBatches":0,"totalRowsAvailable":0,"totalPageDownloadTime":0}}`

const zeroCache = `{"entriesFound":0,"entriesRequested":0,"entriesStored":0,"bytesReceived":0,"bytesSent":0,"requests":0,"downloadTime":0,"queryLengthServed":0}`

// zeroStatsTail is everything after "summary", as Loki writes zero stats.
const zeroStatsTail = `"querier":{"store":` + zeroStore + `,"querierExecTime":0},` +
	`"ingester":{"totalReached":0,"totalChunksMatched":0,"totalBatches":0,"totalLinesSent":0,"store":` + zeroStore + `},` +
	`"cache":{"chunk":` + zeroCache + `,"index":` + zeroCache + `,"result":` + zeroCache + `,"statsResult":` + zeroCache +
	`,"volumeResult":` + zeroCache + `,"seriesResult":` + zeroCache + `,"labelResult":` + zeroCache + `,"instantMetricResult":` + zeroCache + `},` +
	`"index":{"totalChunks":0,"postFilterChunks":0,"shardsDuration":0,"usedBloomFilters":false,"totalStreams":0,"chunkRefsLookupTime":0,"bloomFilterTime":0}}`
