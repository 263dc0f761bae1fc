package differential

import "encoding/binary"

// encodeJobs writes the standard input of a harness run, the oracles' jobs last:
//
//	"PGH1" u32(jobs)
//	per job:  u16(len) constructor  then the job in its family's layout (job.encode)
//
// All integers are big-endian.
func encodeJobs(jobs []job, oracles ...oracleJob) []byte {
	b := []byte("PGH1")
	b = binary.BigEndian.AppendUint32(b, uint32(len(jobs)+len(oracles)))
	for _, o := range oracles {
		jobs = append(jobs[:len(jobs):len(jobs)], o)
	}
	for _, j := range jobs {
		b = binary.BigEndian.AppendUint16(b, uint16(len(j.ctorName())))
		b = append(b, j.ctorName()...)
		b = j.encode(b)
	}
	return b
}
