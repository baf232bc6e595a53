#include <fcntl.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <ctime>
static double cpu(){timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  size_t chunk=size_t(atoi(argv[1]))<<10; int n=atoi(argv[2]); int mode=atoi(argv[3]);
  std::vector<char> buf(chunk); for(size_t i=0;i<chunk;i++) buf[i]=char(i*7);
  int fd=open("/tmp/wt2.bin",O_WRONLY|O_CREAT|O_TRUNC,0644);
  double c0=cpu(); double wcpu=0; off_t off=0, dropped=0;
  for(int i=0;i<n;i++){ double a=cpu(); write(fd,buf.data(),chunk); wcpu+=cpu()-a; off+=chunk;
    if(mode==3){ sync_file_range(fd, off-chunk, chunk, SYNC_FILE_RANGE_WRITE); const off_t lag=64<<20; if (off > lag + dropped + off_t(8<<20)) { off_t from = dropped > lag ? dropped - lag : 0; posix_fadvise(fd, from, off - lag - from, POSIX_FADV_DONTNEED); dropped = off - lag; } }
    if(mode==2){ const off_t lag=64<<20; if (off > lag + dropped + off_t(8<<20)) { off_t from = dropped > lag ? dropped - lag : 0; posix_fadvise(fd, from, off - lag - from, POSIX_FADV_DONTNEED); dropped = off - lag; } }
    if(mode==1){ sync_file_range(fd, off-chunk, chunk, SYNC_FILE_RANGE_WRITE);
      // drop what is at least 8 chunks back: written back by now (wait for it if not)
      if (off - dropped > off_t(8*chunk)) { off_t end = off - 4*chunk; sync_file_range(fd, dropped, end-dropped, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE|SYNC_FILE_RANGE_WAIT_AFTER); posix_fadvise(fd, dropped, end-dropped, POSIX_FADV_DONTNEED); dropped=end; } }
  }
  double c1=cpu(); auto tw=std::chrono::steady_clock::now(); char cmd[200]; snprintf(cmd,sizeof cmd,"fincore /tmp/wt2.bin | tail -1"); system(cmd); close(fd);
  double mb=double(chunk)*n/1e6;
  printf("mode %d %zu KiB x %d: %.1f MB, thread cpu %.3f s (write() %.3f s, %.0f MB/s)\n",mode,chunk>>10,n,mb,c1-c0,wcpu,mb/wcpu);
  unlink("/tmp/wt2.bin");
}
