package pty

// EOFBytes is what to write to a pty's master so that a program reading
// its slave in canonical mode (canonical, with veof the VEOF character)
// sees end of file after the input so far, whose last byte was last
// (sent says whether there was any): VEOF, twice after an unfinished line,
// since the first only ends the line. Outside canonical mode there is no
// end of file to give, and nothing is written.
func EOFBytes(canonical bool, veof byte, sent bool, last byte) []byte {
	if !canonical || veof == 0 {
		return nil
	}
	if sent && last != '\n' {
		return []byte{veof, veof}
	}
	return []byte{veof}
}
