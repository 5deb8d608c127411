import { IsInt, IsString, Max, Min } from 'class-validator';
import { Describe, IntVar } from '../config';

/** Where the standalone profile keeps its state on the laptop it runs on. */
export class StandaloneConfig {
  @Describe('Standalone profile: folder for the embedded Postgres data and generated local secrets.')
  @IsString()
  STANDALONE_DATA_DIR = '.data';

  @Describe('Standalone profile: port of the embedded Postgres (away from a system Postgres on 5432).')
  @IntVar()
  @IsInt()
  @Min(1024)
  @Max(65535)
  STANDALONE_PG_PORT = 54329;
}
